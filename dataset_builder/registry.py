"""Builders by name."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from . import hellobench, longbench_write, longgenbench, tencentllmeval

BUILDERS: dict[str, Callable[..., Path]] = {
    "hellobench": hellobench.build,
    "longbench_write": longbench_write.build,
    "longgenbench": longgenbench.build,
    "tencentllmeval": tencentllmeval.build,
}


def build(
    name: str,
    source: str | Path | None = None,
    out: str | Path | None = None,
    overwrite: bool = False,
    allow_count_mismatch: bool = False,
    **options,
) -> Path:
    """Build dataset `name` into `out` (default `build/<name>`) and return the folder.

    An existing `out` is replaced only if it is empty or an earlier build of `name` (of any dataset with
    `overwrite`) holding nothing but the files its marker lists; never the current directory, the home folder
    or their parents. The released files must hold the published counts, unless `allow_count_mismatch` (the
    card then lists the differences).
    """
    if name not in BUILDERS:
        raise KeyError(f"unknown dataset {name!r}; choose one of {', '.join(sorted(BUILDERS))}")
    return BUILDERS[name](
        source=source,
        out=out or Path("build") / name,
        overwrite=overwrite,
        allow_count_mismatch=allow_count_mismatch,
        **options,
    )
