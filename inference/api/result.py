"""What a run call returns: the figures with their intervals, the counts and the files of one run folder."""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING

from longform_eval.common.plurals import counted

from ..benchmarks import Benchmark
from ..benchmarks.layouts import Figure
from ..benchmarks.run_scores import RunScores
from ..report.markdown import benchmark_of
from ..report.scores_file import scores_if_scored
from ..report.sections.tables import common_decimals
from ..runner import Run, RunConfig
from ..runner.folder import CONFIG_FILE
from ..runner.pending import pending_calls
from .scored import is_number

if TYPE_CHECKING:
    import pandas

NOT_COUNTS = ("schema_version",)  # top-level integers of scores.json that count nothing
HTML_FIGURES = 12  # figures shown in a notebook's table of one run


@dataclass(frozen=True, repr=False)
class RunResult:
    """One run folder as it stands: `scores` (figures, floats) and `intervals` by figure name (as scores.json names
    them), the headline figure, scores.json's counts (`counts`, integers), and the run's own counts. `pending` > 0
    (of which `failed` failed) means the scores are not final yet. `name` is the model as people read it (its
    display name, else `model`, the model id)."""

    folder: Path
    benchmark: str  # NAME:CONFIG
    config: RunConfig
    model: str
    judge: str | None
    name: str
    scores: dict[str, float]
    intervals: dict[str, tuple[float, float]]
    headline: str | None
    counts: dict[str, int]
    rows: int
    generated: int
    judged: int
    unscored: int
    failed: int
    pending: int

    @property
    def judge_name(self) -> str | None:
        """The judge as people read it: its display name, else `judge`."""
        return self.config.judge_label

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

    def headline_text(self) -> str:
        """`overall 2.18 [-94.57, 98.94]`, or what stands in for it before the run is scored."""
        if self.headline is None:
            return "not scored yet" if not self.scores else "no interval"
        return f"{self.headline} {figure_text(self.scores.get(self.headline), self.intervals.get(self.headline))}"

    def __repr__(self) -> str:
        return (
            f"<RunResult {self.benchmark} {self.name!r}: {self.headline_text()}, n={self.rows}, pending={self.pending}>"
        )

    def _repr_html_(self) -> str:
        names = [self.headline] if self.headline else []
        names += [name for name in self.intervals if name != self.headline]
        cells = "".join(
            f"<tr><td>{escape(name)}</td><td>{number(self.scores.get(name), self.intervals.get(name))}</td>"
            f"<td>{interval_text(self.intervals.get(name), self.scores.get(name))}</td></tr>"
            for name in names[:HTML_FIGURES]
        )
        more = (
            f"<p>{counted(len(names) - HTML_FIGURES, 'more figure')}: <code>to_pandas()</code></p>"
            if names[HTML_FIGURES:]
            else ""
        )
        judge = f", judged by {escape(self.judge_name)}" if self.judge_name else ""
        head = (
            f"<p><b>{escape(self.name)}</b> on {escape(self.benchmark)}{judge}: n={self.rows}, "
            f"pending={self.pending}</p>"
        )
        table = f"<table><tr><th>figure</th><th>value</th><th>95% interval</th></tr>{cells}</table>" if cells else ""
        return head + table + more

    def to_pandas(self, level: str = "figures") -> pandas.DataFrame:
        """A DataFrame of the run: `figures` (one row per figure with its interval), `tasks` (one row per figure of a
        task or other group) or `rows` (one row per evaluated sample, with its score and the judge's verdict). Each
        row names the run (`run`: the display name) and the benchmark, so that frames of several runs concatenate."""
        from .frames import run_frame

        return run_frame(self, level)


def figure_text(value: float | None, interval: tuple[float, float] | None) -> str:
    shown = number(value, interval)
    return f"{shown} {interval_text(interval, value)}" if interval else shown


def decimals(value: float | None, interval: tuple[float, float] | None) -> int:
    """One precision for a figure and its interval: 4 significant digits of the largest of them."""
    return common_decimals([x for x in (value, *(interval or ())) if x is not None])


def number(value: float | None, interval: tuple[float, float] | None = None) -> str:
    return "-" if value is None else f"{value:.{decimals(value, interval)}f}"


def interval_text(interval: tuple[float, float] | None, value: float | None = None) -> str:
    if interval is None:
        return "-"
    digits = decimals(value, interval)
    return f"[{interval[0]:.{digits}f}, {interval[1]:.{digits}f}]"


def run_result(run: Run) -> RunResult:
    """The result of `run` as its folder holds it (scores empty until scores.json is written)."""
    scores = scores_if_scored(run.folder)
    pending = pending_calls(run)
    judgements = run.current_judgements().values()
    values, intervals, headline = figures(scores)
    return RunResult(
        folder=run.folder,
        benchmark=f"{run.config.benchmark}:{run.config.benchmark_config}",
        config=run.config,
        model=run.config.model_id,
        judge=run.config.judge.name if run.config.judge else None,
        name=run.config.model_label,
        scores=values,
        intervals=intervals,
        headline=headline,
        counts=counts(scores),
        rows=len(run.rows),
        generated=len(run.current_generations()),
        judged=len(judgements),
        unscored=sum(1 for judgement in judgements if judgement.unscored_reason),
        failed=sum(pending.failed.values()),
        pending=pending.count,
    )


def figure_names(scores: RunScores, benchmark: Benchmark) -> set[str]:
    """The figures of scores.json: those of its `intervals`, and the top-level fields its layout declares figures."""
    layout = benchmark.scores_layout.model_fields if benchmark.scores_layout else {}
    declared = {name for name, field in layout.items() if field.annotation == Figure}
    return set(scores.intervals) | declared


def counts(scores: RunScores | None) -> dict[str, int]:
    """The top-level counts of scores.json (integers that are no figure: `n_scored`, `n_samples`, ...), as integers."""
    if scores is None:
        return {}
    named = figure_names(scores, benchmark_of(scores))
    return {
        key: value
        for key, value in scores.document().items()  # every top-level field as stored, the benchmark's own included
        if isinstance(value, int) and not isinstance(value, bool) and key not in named and key not in NOT_COUNTS
    }


def figures(scores: RunScores | None) -> tuple[dict[str, float], dict[str, tuple[float, float]], str | None]:
    """(value by figure, (low, high) by figure, the headline figure): the top-level figures of scores.json (floats,
    and the fields the benchmark declares figures) and each figure of its `intervals`, found where the benchmark
    puts it. Counts are left out (see `counts`)."""
    if scores is None:
        return {}, {}, None
    benchmark = benchmark_of(scores)
    named = figure_names(scores, benchmark)
    top = scores.document().items()  # every top-level field as stored, the benchmark's own included
    values = {k: float(v) for k, v in top if is_number(v) and (isinstance(v, float) or k in named)}
    for name in scores.intervals:  # a figure without an interval (one unit per stratum) has a value
        value = benchmark.figure_value(scores.figures, name)
        if is_number(value):
            values[name] = float(value)
    intervals = {name: (found.low, found.high) for name, found in scores.intervals.items() if found is not None}
    headline = benchmark.headline_of(list(scores.intervals))
    return values, intervals, headline
