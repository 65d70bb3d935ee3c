"""A run's judge labels, read from its scores.json (checked as `report` checks it): what `calibrate` corrects.

A pairwise run (`Benchmark.pairwise_battles`): the judge's outcome per item, from the model's side (A: the model's
answer better). A HelloBench run: the judge's row score (0..100, weighted as the metric weighs it) per row, and the
row's task and subcategory. Other benchmarks have no human labels of this kind and are refused.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from longform_eval.metric.helloeval.weights import task_of_subcategory

from ..benchmarks import create_benchmark
from ..report.scores_file import load_scores

PAIRWISE, CHECKLISTS = "pairwise", "checklists"


class NotCalibratable(ValueError):
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
    scores = load_scores(folder)
    benchmark = create_benchmark(scores["benchmark"], scores.get("config"))
    common = {
        "folder": folder,
        "benchmark": scores["benchmark"],
        "config": str(scores.get("config")),
        "model": scores["model"],
        "judge": scores.get("judge"),
    }
    if benchmark.headline_figure == "win_rate":
        battles = benchmark.pairwise_battles(scores)
        outcomes = {battle.item_id: battle.outcome for battle in battles}
        return RunLabels(**common, kind=PAIRWISE, baseline=scores.get("baseline"), outcomes=outcomes)
    if benchmark.name == "hellobench":
        task_of = task_of_subcategory()
        scored = [row for row in scores.get("rows", []) if row.get("row_score") is not None]
        rows = {row["id"]: (task_of[row["subcategory"]], float(row["row_score"])) for row in scored}
        subcategories = {row["id"]: row["subcategory"] for row in scored}
        return RunLabels(**common, kind=CHECKLISTS, rows=rows, subcategories=subcategories)
    raise NotCalibratable(
        f"{folder}: a {scores['benchmark']} run; calibrate takes pairwise runs (hellobench-pairwise, tencentllmeval) "
        "and HelloBench runs"
    )


__all__ = ["CHECKLISTS", "PAIRWISE", "NotCalibratable", "RunLabels", "read_run_labels"]
