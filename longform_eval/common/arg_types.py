"""Argument types of every `longform-eval` option: each refuses a bad value while the command line is parsed.

Used as `add_argument(..., type=positive_int)`. A refused value becomes one line, e.g.
`longform-eval run: error: argument --limit: expected an integer >= 1, got '-5'`, before any file is written.
Here (the lowest layer) so that the commands of every package share them.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


def integer(minimum: int | None = None, maximum: int | None = None, why: str = "") -> Callable[[str], int]:
    """An integer in [minimum, maximum] (either bound may be open); `why`, said of a value over the maximum, is why
    the ceiling is where it is."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
            reason = f" ({why})" if why and value is not None and maximum is not None and value > maximum else ""
            raise argparse.ArgumentTypeError(f"expected {wanted('an integer', minimum, maximum)}, got {text!r}{reason}")
        return value

    parse.__name__ = "integer"
    return parse


@dataclass(frozen=True)
class Ceiling:
    """The largest value a count may take, and why a larger one can only be a mistake (or would exhaust memory).

    The same ceiling checks the command line (`argument`) and a typed configuration (`check`, a pydantic
    AfterValidator), so that config.yaml and `--benchmark-arg` are held to what the option is."""

    maximum: int
    why: str

    def argument(self, minimum: int = 1) -> Callable[[str], int]:
        return integer(minimum, self.maximum, self.why)

    def check(self, value: int) -> int:
        if value > self.maximum:
            raise ValueError(f"at most {self.maximum} ({self.why}), got {value}")
        return value


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
        return f"{kind} in [{number(minimum)}, {number(maximum)}]"
    if minimum is not None:
        return f"{kind} >= {number(minimum)}"
    return f"{kind} <= {number(maximum)}" if maximum is not None else kind


def number(value: float) -> str:
    """An integer in full (1048576, not 1.04858e+06), any other number short."""
    return str(value) if isinstance(value, int) else f"{value:g}"


positive_int = integer(minimum=1)
non_negative_int = integer(minimum=0)
port = integer(minimum=1, maximum=65535, why="a TCP port")
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
    "Ceiling",
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
