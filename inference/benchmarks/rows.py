"""Rows of a benchmark config, read the way users read them: `datasets.load_dataset(folder_or_repo_id, config)`.

With no dataset given, the builder of the dataset the benchmark declares (`longform_eval.registry`) builds its
folder once into the cache (`$LONGFORM_EVAL_CACHE/datasets`, default `~/.cache/longform_eval/datasets`) from the
local source files, so a run works offline. A cached folder counts once its build marker is in place; a build there
replaces only an earlier build, and removes the staging folders that killed builds left beside it.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
from pathlib import Path
from typing import Any

from longform_eval.common.datasets_bars import without_datasets_bars
from longform_eval.registry import benchmark_declarations

from .base import Benchmark

SPLIT = "test"


def cache_root() -> Path:
    return Path(os.environ.get("LONGFORM_EVAL_CACHE", Path.home() / ".cache" / "longform_eval")).expanduser()


def default_dataset(builder: str, options: dict[str, Any], source: str | None) -> Path:
    """The cached build of `builder` with `options` from `source`, built now if missing (one builder at a time)."""
    from longform_eval.common.code_identity import code_identity
    from longform_eval.dataset_builder import OutputFolderError, build
    from longform_eval.dataset_builder.folder import read_marker

    resolved = str(Path(source).resolve()) if source else None
    identity = json.dumps([builder, options, resolved, code_identity()], sort_keys=True, default=str)
    folder = cache_root() / "datasets" / f"{builder}-{hashlib.sha256(identity.encode()).hexdigest()[:12]}"
    folder.parent.mkdir(parents=True, exist_ok=True)
    with (folder.parent / f".{folder.name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (read_marker(folder) or {}).get("dataset") != builder:  # the marker makes a build complete
            try:
                build(builder, source=source, out=folder, **options)
            except OutputFolderError as error:
                raise OutputFolderError(f"the dataset cache ($LONGFORM_EVAL_CACHE): {error}") from error
    return folder


def config_names(dataset: str, revision: str | None) -> list[str]:
    import datasets

    return datasets.get_dataset_config_names(dataset, revision=revision)


def load_config_rows(dataset: str, config: str, revision: str | None = None) -> list[dict[str, Any]]:
    """The rows of one config (split `test`, or the only split there is)."""
    import datasets

    if "://" in dataset:  # a Path would fold its `//`, and the URL's secrets would no longer be masked in messages
        raise ValueError(f"dataset {dataset}: a URL; give a dataset folder or a Hub repo id")
    if Path(dataset).exists() and not (Path(dataset) / "README.md").is_file():
        raise FileNotFoundError(f"{dataset}: not a dataset folder (no README.md with a `configs:` block)")
    names = config_names(dataset, revision)
    if config not in names:
        raise ValueError(f"dataset {dataset}: no config {config!r}; it has {', '.join(names)}")
    with without_datasets_bars():  # a split of a few thousand rows is built in under a second
        loaded = datasets.load_dataset(dataset, config, revision=revision)
    split = SPLIT if SPLIT in loaded else next(iter(loaded)) if len(loaded) == 1 else None
    if split is None:
        raise ValueError(f"dataset {dataset}, config {config}: no {SPLIT!r} split among {', '.join(loaded)}")
    return loaded[split].to_list()


def benchmark_rows(
    benchmark: Benchmark, dataset: str | None, revision: str | None = None, source: str | None = None
) -> list[dict[str, Any]]:
    if dataset is None:
        declaration = benchmark_declarations().get(benchmark.name)
        builder = declaration.dataset_name if declaration is not None else None
        if builder is None:
            raise ValueError(f"{benchmark.name}: give --dataset (this benchmark declares no dataset of its own)")
        dataset = str(default_dataset(builder, benchmark.build_options(), source))
    return benchmark.prepare_rows(load_config_rows(dataset, benchmark.config, revision))
