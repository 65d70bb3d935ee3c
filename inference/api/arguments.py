"""The Python API's arguments checked for their type before they are used: a value of the wrong type (`benchmark=123`,
`model=42`, `out=b"runs"`) is a ConfigError naming the argument, never an AttributeError from deep inside."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .settings import refused


def kind_of(value: object) -> str:
    """`a value of type int`, `None`: what was given, as a refusal names it."""
    return "None" if value is None else f"a value of type {type(value).__name__}"


def text_argument(field: str, value: object, what: str, optional: bool = False) -> str | None:
    """`value` if it is a non-empty string (or None where `optional`); `what` says what is expected."""
    if value is None and optional:
        return None
    if isinstance(value, str) and value.strip():
        return value
    given = "an empty string" if isinstance(value, str) else kind_of(value)
    raise refused(field, f"expected {what}, got {given}")


def benchmark_argument(value: object) -> str:
    """One `NAME[:CONFIG]`: a list is refused (one call runs one benchmark, into one folder)."""
    if isinstance(value, (list, tuple, set)):
        raise refused("benchmark", f"expected one NAME[:CONFIG] string, got {kind_of(value)}; call once per benchmark")
    return text_argument("benchmark", value, "one NAME[:CONFIG] string, e.g. 'hellobench:chat'")  # type: ignore[return-value]


def model_argument(field: str, value: object) -> str | None:
    """A `BACKEND:MODEL` string, or None (the default model, or no judge)."""
    return text_argument(field, value, "a BACKEND:MODEL string, e.g. 'openai:gpt-4o'", optional=True)


def path_argument(field: str, value: object, optional: bool = False) -> str | Path | None:
    """A folder (or an `hf://` path) as a str or a path object, returned as given (a str stays a str: `Path` would
    fold `hf://` into `hf:/`); bytes, other types and an empty string are refused."""
    if value is None and optional:
        return None
    path = os.fspath(value) if isinstance(value, os.PathLike) else value
    if isinstance(path, str) and path:
        return path if isinstance(value, str) else Path(path)
    given = "an empty string" if path == "" else kind_of(value)
    raise refused(field, f"expected a folder as a str or a pathlib.Path, got {given}")


def folder_argument(field: str, value: object) -> Path:
    """A local folder as a str or a path object, as a Path."""
    return Path(path_argument(field, value))  # type: ignore[arg-type]


def run_list(runs: object, result: type, field: str = "runs") -> list[Any]:
    """`compare`'s runs (or another list of runs, `field`) as a list: one folder, hf:// path or `result` (a RunResult)
    given alone is one run (an hf:// path may hold several), never a string walked letter by letter."""
    if isinstance(runs, (str, os.PathLike, result)):
        return [runs]
    if isinstance(runs, (bytes, dict)) or not isinstance(runs, Iterable):
        raise refused(field, f"expected a list of run folders, hf:// paths or RunResults, got {kind_of(runs)}")
    return list(runs)


__all__ = [
    "benchmark_argument",
    "folder_argument",
    "kind_of",
    "model_argument",
    "path_argument",
    "run_list",
    "text_argument",
]
