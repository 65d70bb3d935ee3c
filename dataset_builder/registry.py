"""Builders by name: the datasets benchmarks declare (`longform_eval.registry`), each builder imported when used."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

from longform_eval.registry import dataset_declaration, dataset_declarations


class DeclaredBuilders(Mapping[str, Callable[..., Path]]):
    """Read-only: dataset name -> its builder, as the registry declares it (read once per process), imported when
    asked for."""

    def __getitem__(self, name: str) -> Callable[..., Path]:
        if name not in dataset_declarations():
            raise KeyError(name)
        return dataset_declaration(name).load_builder()

    def __iter__(self) -> Iterator[str]:
        return iter(dataset_declarations())

    def __len__(self) -> int:
        return len(dataset_declarations())


BUILDERS: Mapping[str, Callable[..., Path]] = DeclaredBuilders()


def build(
    name: str,
    source: str | Path | None = None,
    out: str | Path | None = None,
    overwrite: bool = False,
    allow_count_mismatch: bool = False,
    repo_id: str | None = None,
    **options,
) -> Path:
    """Build dataset `name` into `out` (default `build/<name>`) and return the folder.

    An existing `out` is replaced only if it is empty or an earlier build of `name` (of any dataset with
    `overwrite`) holding nothing but the files its marker lists; never the current directory, the home folder
    or their parents. The released files must hold the published counts, unless `allow_count_mismatch` (the
    card then lists the differences). `repo_id` (ORG/NAME) is the repo the card's code loads the dataset from, and
    ORG the namespace of the metrics it names; without it the card's code names the local folder
    (`path/to/<name>`) and the metrics' folders in a checkout of longform-eval (see `card.CardRepo`).
    """
    if name not in BUILDERS:
        raise KeyError(f"unknown dataset {name!r}; choose one of {', '.join(sorted(BUILDERS))}")
    return BUILDERS[name](
        source=source,
        out=out or Path("build") / name,
        overwrite=overwrite,
        allow_count_mismatch=allow_count_mismatch,
        repo_id=repo_id,
        **options,
    )
