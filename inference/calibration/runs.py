"""A run's judge labels, read from its scores.json (checked as `report` checks it): what `calibrate` corrects.

Which labels a run has is its benchmark's to say (`Benchmark.human_labels`): "pairwise", the judge's outcome per
item from the model's side (`pairwise_battles`; A: the model's answer better); "checklists", the judge's row score
per row with its task and subcategory (`checklist_rows`). Other benchmarks have none and are refused.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from longform_eval.common.errors import LongformEvalError

from ..benchmarks import create_benchmark
from ..benchmarks.layouts import field_value
from ..benchmarks.run_scores import RunScores
from ..report.scores_file import load_scores

PAIRWISE, CHECKLISTS = "pairwise", "checklists"


class NotCalibratable(LongformEvalError, ValueError):
    """The run's benchmark has no figure that human labels of this kind calibrate."""


@dataclass(frozen=True)
class RunLabels:
    folder: Path
    benchmark: str
    config: str
    model: str
    judge: str | None
    kind: str  # PAIRWISE or CHECKLISTS
    baseline: str | None = None
    outcomes: dict[str, str] = field(default_factory=dict)  # pairwise: item id -> the judge's outcome
    rows: dict[str, tuple[str, float]] = field(default_factory=dict)  # checklists: row id -> (task, row score)
    subcategories: dict[str, str] = field(default_factory=dict)  # checklists: row id -> subcategory

    @property
    def name(self) -> str:
        against = f" vs {self.baseline}" if self.baseline else ""
        return f"{self.model}{against} ({self.benchmark}:{self.config})"

    @property
    def item_prefix(self) -> str:
        """How the Space names this benchmark's items: `benchmark:config/<sample id>`."""
        return f"{self.benchmark}:{self.config}/"


def read_run_labels(folder: Path) -> RunLabels:
    """Raises DamagedFile (scores.json fails its checks) or NotCalibratable (a benchmark without such figures)."""
    return run_labels(folder, load_scores(folder))


def run_labels(folder: Path, scores: RunScores) -> RunLabels:
    """The labels of the run in `folder`, whose scores.json `scores` passed `load_scores`'s checks; raises
    NotCalibratable (a benchmark without such figures)."""
    benchmark = create_benchmark(scores.benchmark, scores.config)
    common = {
        "folder": folder,
        "benchmark": scores.benchmark,
        "config": scores.config,
        "model": scores.model,
        "judge": scores.judge,
    }
    if benchmark.human_labels == PAIRWISE:
        battles = benchmark.pairwise_battles(scores)
        outcomes = {battle.item_id: battle.outcome for battle in battles}
        return RunLabels(**common, kind=PAIRWISE, baseline=field_value(scores.figures, "baseline"), outcomes=outcomes)
    if benchmark.human_labels == CHECKLISTS:
        scored = benchmark.checklist_rows(scores)
        rows = {row.id: (row.task, row.score) for row in scored}
        subcategories = {row.id: row.subcategory for row in scored}
        return RunLabels(**common, kind=CHECKLISTS, rows=rows, subcategories=subcategories)
    raise NotCalibratable(
        f"{folder}: a {scores.benchmark} run; calibrate takes pairwise runs (hellobench-pairwise, tencentllmeval) "
        "and HelloBench runs"
    )


__all__ = ["CHECKLISTS", "PAIRWISE", "NotCalibratable", "RunLabels", "read_run_labels", "run_labels"]
