"""Argument types of every `longform-eval` option: each refuses a bad value while the command line is parsed.

Used as `add_argument(..., type=positive_int)`. A refused value becomes one line, e.g.
`longform-eval run: error: argument --limit: expected an integer >= 1, got '-5'`, before any file is written.
Here (the lowest layer) so that the commands of every package share them.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from pathlib import Path


def integer(minimum: int | None = None, maximum: int | None = None) -> Callable[[str], int]:
    """An integer in [minimum, maximum] (either bound may be open)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
            raise argparse.ArgumentTypeError(f"expected {wanted('an integer', minimum, maximum)}, got {text!r}")
        return value

    parse.__name__ = "integer"
    return parse


def finite_float(minimum: float | None = None, maximum: float | None = None) -> Callable[[str], float]:
    """A finite number (not nan or inf) in [minimum, maximum] (either bound may be open)."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        outside = (minimum is not None and value < minimum) or (maximum is not None and value > maximum)
        if not math.isfinite(value) or outside:
            raise argparse.ArgumentTypeError(f"expected {wanted('a finite number', minimum, maximum)}, got {text!r}")
        return value

    parse.__name__ = "finite_float"
    return parse


def wanted(kind: str, minimum: float | None, maximum: float | None) -> str:
    if minimum is not None and maximum is not None:
        return f"{kind} in [{minimum:g}, {maximum:g}]"
    if minimum is not None:
        return f"{kind} >= {minimum:g}"
    return f"{kind} <= {maximum:g}" if maximum is not None else kind


positive_int = integer(minimum=1)
non_negative_int = integer(minimum=0)
port = integer(minimum=0, maximum=65535)  # 0: any free port
temperature = finite_float(minimum=0.0)


def out_folder(text: str) -> Path:
    """A folder to write into: it may not exist yet, but it may not be a file."""
    path = Path(text)
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"{text} is a file, expected a folder (an existing one or a new one)")
    return path


def not_a_url(what: str) -> Callable[[str], str]:
    """`what` (a local folder, or a Hub repo id), not a URL. Refused while parsing, before it becomes a Path (which
    folds `//` so that a secret in the URL is no longer masked in a message); the message does not repeat it."""

    def parse(text: str) -> str:
        if "://" in text:
            raise argparse.ArgumentTypeError(f"expected {what}, got a URL (not repeated: it may hold a secret)")
        return text

    parse.__name__ = "not_a_url"
    return parse


source_folder = not_a_url("a local folder of source files")
dataset_folder_or_repo = not_a_url("a dataset folder or a Hub repo id")

__all__ = [
    "dataset_folder_or_repo",
    "finite_float",
    "integer",
    "non_negative_int",
    "not_a_url",
    "out_folder",
    "port",
    "positive_int",
    "source_folder",
    "temperature",
]
