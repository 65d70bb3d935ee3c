"""What a pairwise run compares with: the dataset's reference answers, or the answers of another run folder.

A baseline run folder is read by the runner, which owns run folders: the benchmark's `read_run` (set by the runner:
the folder opened read-only, its model's current generations, `<think>` stripped if that run strips it); nothing in
it is locked or written.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..base import RunReader

REFERENCE = "reference"
RUN_CONFIG = "config.yaml"


def checked_baseline(value: str | None) -> str | None:
    """`reference`, or a run folder as an absolute path (config.yaml keeps it usable from another directory)."""
    if value is None or value == REFERENCE:
        return value
    folder = Path(value).expanduser().resolve()
    if not (folder / RUN_CONFIG).is_file():
        raise ValueError(
            f"baseline {value!r}: expected {REFERENCE!r} or a run folder, and {folder} has no {RUN_CONFIG} "
            "(make one with `longform-eval generate`, `run` or `import-generations`)"
        )
    return str(folder)


@dataclass(frozen=True)
class BaselineRun:
    folder: Path
    name: str
    answers: dict[str, str]


def read_baseline_run(
    folder: Path, accepted: tuple[str, ...], config: str | None, read_run: RunReader | None
) -> BaselineRun:
    """The current answers of a run folder of one of the `accepted` benchmarks (of `config`, when given)."""
    if read_run is None:
        raise ValueError(f"baseline {folder}: no run-folder reader given (the runner sets the benchmark's read_run)")
    run = read_run(folder)
    if run.benchmark not in accepted or config not in (None, run.config):
        wanted = " or ".join(f"{name}:{config}" if config else name for name in accepted)
        raise ValueError(
            f"baseline {folder}: a {run.benchmark}:{run.config} run; answers to the same prompts come "
            f"from a {wanted} run"
        )
    if not run.answers:
        raise ValueError(f"baseline {folder}: no generations of {run.model} yet; generate them first")
    return BaselineRun(folder, run.model, run.answers)
