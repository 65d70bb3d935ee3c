"""Builders by name."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from . import hellobench, longgenbench, tencentllmeval

BUILDERS: dict[str, Callable[..., Path]] = {
    "hellobench": hellobench.build,
    "longgenbench": longgenbench.build,
    "tencentllmeval": tencentllmeval.build,
}


def build(name: str, source: str | Path | None = None, out: str | Path | None = None, **options) -> Path:
    """Build dataset `name` into `out` (default `build/<name>`) and return the folder."""
    if name not in BUILDERS:
        raise KeyError(f"unknown dataset {name!r}; choose one of {', '.join(sorted(BUILDERS))}")
    return BUILDERS[name](source=source, out=out or Path("build") / name, **options)
