"""Assemble a release: build its datasets from the sources into a temporary folder and collect every repo's files.

No network: the datasets are built by the same builders as `longform-eval build` (never into a user's folder),
the metric and Space files come from the installed package.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path

from longform_eval.dataset_builder.folder import package_version
from longform_eval.dataset_builder.registry import BUILDERS, build

from .licences import licence_of
from .release_plan import (
    DEFAULT_SPACE_NAME,
    Release,
    arena_repo,
    dataset_repo,
    metric_names,
    metric_repo,
    refusal,
    split_by_licence,
)
from .space_settings import SpaceSettings


def release_version() -> str:
    """This package's version, which every requirements file of the release pins."""
    version = package_version()
    if version == "unknown":
        raise ValueError("longform-eval has no installed version to pin; install it (pip install .) and run again")
    return version


def dataset_source(source: Path | None, dataset: str) -> Path | None:
    """`--source DIR` holds one folder per dataset (`hellobench/`, ...); without it the builders look as usual."""
    return None if source is None else Path(source) / dataset


def assemble_release(
    org: str,
    source: Path | None = None,
    with_restricted: bool = False,
    private: bool = False,
    space_name: str = DEFAULT_SPACE_NAME,
    datasets: Sequence[str] | None = None,
    arena: SpaceSettings | None = None,
) -> Release:
    """Every repo of the release for `org`, with its files; restricted datasets refused unless `with_restricted`.

    `datasets` (default: every registered builder) limits the dataset repos. Restricted datasets that are
    published become private repos whatever `private` says. `arena`: the arena Space's settings (default: see
    `arena_repo`).
    """
    version = release_version()
    chosen, refused = split_by_licence(datasets if datasets is not None else sorted(BUILDERS), with_restricted)
    repos = []
    with tempfile.TemporaryDirectory(prefix="longform-eval-release-") as work:
        for dataset in chosen:
            repo_id = f"{org}/{dataset}"  # the card's code loads it from there, and the metrics from ORG/<metric>
            folder = build(dataset, source=dataset_source(source, dataset), out=Path(work) / dataset, repo_id=repo_id)
            repos.append(dataset_repo(org, dataset, folder, private))
    public = [dataset for dataset in chosen if licence_of(dataset).is_open]  # a restricted one is private
    repos += [metric_repo(org, name, version, private, public) for name in metric_names()]
    repos.append(arena_repo(org, version, space_name, private, arena))
    return Release(org, version, repos, [refusal(org, name) for name in refused])
