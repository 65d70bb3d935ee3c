"""A scores.json document as a `RunScores`, its benchmark's figures checked against the layout the benchmark
declares (`Benchmark.scores_layout`, found in the registry): the one function that makes one (`run_scores`), used by
`runner.scoring.write_scores` before the file is written and by `report.scores_file.load_scores` when it is read."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from .registry import benchmark_class
from .run_scores import RunScores


def run_scores(document: Any) -> RunScores:
    """`document` (scores.json as JSON gives it back) as a RunScores; a ScoresInvalid naming the first field that the
    fields every scores.json has or its benchmark's figures (`Benchmark.scores_layout`) refuse."""
    name = document.get("benchmark") if isinstance(document, dict) else None
    return RunScores.of(document, figures_layout(name))


def figures_layout(name: Any) -> type[BaseModel] | None:
    """The layout of benchmark `name`'s figures; None for a benchmark that declares none or is not installed (a run
    of it can still be listed; `report` refuses it, as its config.yaml names a benchmark it does not know)."""
    try:
        return benchmark_class(name).scores_layout if isinstance(name, str) else None
    except ValueError:
        return None
