"""What a pairwise run compares with: the dataset's reference answers, or the answers of another run folder.

A baseline run folder is read the way the runner reads its own (`Run.open(read_only=True)`: its model's current
generations, `<think>` stripped if that run strips it); nothing in it is locked or written.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

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


def read_baseline_run(folder: Path, accepted: tuple[str, ...], config: str | None) -> BaselineRun:
    """The current answers of a run folder of one of the `accepted` benchmarks (of `config`, when given)."""
    from ..runner import Run

    run = Run.open(folder, read_only=True)
    kind = f"{run.config.benchmark}:{run.config.benchmark_config}"
    if run.config.benchmark not in accepted or config not in (None, run.config.benchmark_config):
        wanted = " or ".join(f"{name}:{config}" if config else name for name in accepted)
        raise ValueError(f"baseline {folder}: a {kind} run; answers to the same prompts come from a {wanted} run")
    answers = {sample_id: text for sample_id, (text, _) in run.responses().items()}
    if not answers:
        raise ValueError(f"baseline {folder}: no generations of {run.config.model_id} yet; generate them first")
    return BaselineRun(folder, run.config.model_id, answers)
