"""Another run folder as a benchmark reads it (a pairwise baseline): the runner owns run folders, so it reads them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..benchmarks.base import RunAnswers


def read_answers(open_run: Callable[..., Any], folder: Path) -> RunAnswers:
    """The folder opened read-only by `open_run` (`Run.open`: no lock, nothing written): its model's current answers,
    as that run judges them."""
    run = open_run(folder, read_only=True)
    answers = {sample_id: text for sample_id, (text, _) in run.responses().items()}
    return RunAnswers(run.config.benchmark, run.config.benchmark_config, run.config.model_id, answers)
