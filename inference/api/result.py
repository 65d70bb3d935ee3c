"""What a run call returns: the scores with their intervals, the counts and the files of one run folder."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..report.markdown import benchmark_of
from ..report.scores_file import SCORES_FILE, load_scores
from ..runner import Run, RunConfig
from ..runner.folder import CONFIG_FILE
from ..runner.pending import pending_calls


@dataclass(frozen=True)
class RunResult:
    """One run folder as it stands: `scores` and `intervals` by figure name (as scores.json names them), the headline
    figure, and the counts. `pending` > 0 (of which `failed` failed) means the scores are not final yet."""

    folder: Path
    benchmark: str  # NAME:CONFIG
    config: RunConfig
    model: str
    judge: str | None
    scores: dict[str, float]
    intervals: dict[str, tuple[float, float]]
    headline: str | None
    rows: int
    generated: int
    judged: int
    unscored: int
    failed: int
    pending: int

    @property
    def config_path(self) -> Path:
        return self.folder / CONFIG_FILE

    @property
    def scores_path(self) -> Path:
        return self.folder / "scores.json"

    @property
    def report_path(self) -> Path:
        return self.folder / "report.md"

    @property
    def complete(self) -> bool:
        """Every call made: the scores are final."""
        return self.pending == 0


def run_result(run: Run) -> RunResult:
    """The result of `run` as its folder holds it (scores empty until scores.json is written)."""
    scores = read_scores(run.folder)
    pending = pending_calls(run)
    judgements = run.current_judgements().values()
    values, intervals, headline = figures(scores)
    return RunResult(
        folder=run.folder,
        benchmark=f"{run.config.benchmark}:{run.config.benchmark_config}",
        config=run.config,
        model=run.config.model_id,
        judge=run.config.judge.name if run.config.judge else None,
        scores=values,
        intervals=intervals,
        headline=headline,
        rows=len(run.rows),
        generated=len(run.current_generations()),
        judged=len(judgements),
        unscored=sum(1 for judgement in judgements if judgement.unscored_reason),
        failed=sum(pending.failed.values()),
        pending=pending.count,
    )


def read_scores(folder: Path) -> dict[str, Any]:
    """scores.json as `report` reads it (every field checked), or nothing before the run is scored."""
    return load_scores(folder) if (folder / SCORES_FILE).is_file() else {}


def figures(scores: dict[str, Any]) -> tuple[dict[str, float], dict[str, tuple[float, float]], str | None]:
    """(value by figure, (low, high) by figure, the headline figure): the top-level numbers of scores.json and each
    figure of its `intervals`, found where the benchmark puts it."""
    if not scores:
        return {}, {}, None
    values = {k: float(v) for k, v in scores.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
    found = {name: interval for name, interval in (scores.get("intervals") or {}).items() if interval}
    benchmark = benchmark_of(scores)
    for name in scores.get("intervals") or {}:  # a figure without an interval (one unit per stratum) has a value
        value = benchmark.figure_value(scores, name)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            values[name] = float(value)
    intervals = {name: (float(i["low"]), float(i["high"])) for name, i in found.items() if "low" in i}
    headline = benchmark.headline_figure if benchmark.headline_figure in found else next(iter(found), None)
    return values, intervals, headline
