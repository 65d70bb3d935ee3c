"""report.md and plots for a run folder, a side-by-side leaderboard of several runs, and a run's closing summary.

The run's counts, deviations and stage times are common to every benchmark; the figures, tables and plots are the
benchmark's presentation (`sections_for(benchmark)`: `report_section`, `headline`; `Benchmark.headline_scale`), and so
are the published figures shown beside them (its `context`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from longform_eval.common.atomic import write_text_atomic

from ..benchmarks import Benchmark, create_benchmark
from .calibration_view import calibration_lines
from .scores_file import load_scores
from .sections import sections_for
from .sections.context import RunContext, context_lines
from .sections.tables import fmt, fmt_interval
from .timings import STAGES, read_timings, save_invocation, timing_lines
from .uncertainty import interval_sentences, judge_temperature, variance_lines


def benchmark_of(scores: dict[str, Any]) -> Benchmark:
    return create_benchmark(scores["benchmark"], scores.get("config"))


def scale_of(benchmark: Benchmark) -> str:
    return benchmark.headline_scale or "scale not stated"


def write_report(folder: str | Path) -> Path:
    folder = Path(folder)
    scores = load_scores(folder)
    invocations = read_timings(folder)  # read (and checked) before any plot is drawn
    benchmark = benchmark_of(scores)
    sections = sections_for(benchmark)
    headline, details = sections.headline(scores)
    lines = [
        f"# {scores['benchmark']}:{scores.get('config')}: {scores['model']}",
        "",
        f"Judge: `{scores.get('judge')}`.",
        "",
        f"Headline: **{headline}** (scale {scale_of(benchmark)}; {details}).",
        *[line for sentence in interval_sentences(scores) for line in ("", sentence)],
    ]
    lines += [
        "",
        f"Samples: {scores['n_samples']}; generated: {scores['n_generated']}; "
        f"truncated generations (hit max_new_tokens): {scores['n_truncated_generations']}.",
        "",
    ]
    if not scores.get("complete", True):
        lines += [
            f"**Incomplete run**: {scores.get('n_pending_generations')} generations and "
            f"{scores.get('n_pending_judge_calls')} judge calls are still pending (failed calls are logged in "
            "failures.jsonl); the figures below cover what is done. Run the same command again to finish.",
            "",
        ]
    if scores.get("deviations"):
        lines += [
            "**Deviations from the paper's settings** (scores are not comparable with the paper):",
            *[f"- {d}" for d in scores["deviations"]],
            "",
        ]
    if scores.get("parser_rescues"):
        rescues = ", ".join(f"{name} {n}" for name, n in scores["parser_rescues"].items())
        lines += [f"Verdicts saved by the lenient parser: {rescues}.", ""]
    section = sections.report_section(scores, folder)
    lines += [*section.lines, "", *[f"![{p.stem}]({p.name})" for p in section.plots]]
    if any((scores.get("intervals") or {}).values()):
        lines += ["", *variance_lines(scores, benchmark, judge_temperature(folder))]
    lines += calibration_lines(folder)
    context = sections.context(scores, folder)
    if context is not None:
        lines += ["", *context_lines(context, scores.get("judge"))]
    lines += timing_lines(invocations)
    return write_text_atomic(folder / "report.md", "\n".join(lines).rstrip("\n") + "\n")


# ----- the leaderboard ------------------------------------------------------------------------------------------
COLUMNS = ("run", "benchmark", "model", "judge", "prompts", "score", "scale", "details", "unscored", "complete")
INTERVAL_NOTE = (
    "score: the figure [its 95% interval] (each run's report.md says how it was computed). Whether two runs differ "
    "is told by their paired comparison on shared prompts (comparisons.json), not by their order here."
)


def leaderboard(folders: list[Path]) -> Table:
    """One row per run, its headline figure with its scale, and after it the published rows of its context
    (each shown once), marked with their own judge and prompts."""
    table = Table(title="leaderboard")
    for column in COLUMNS:
        table.add_column(column, no_wrap=column == "score")  # a figure and its interval on one line
    shown: set[tuple[str, ...]] = set()
    notes: list[str] = []
    for folder in folders:
        scores = load_scores(folder)
        benchmark = benchmark_of(scores)
        table.add_row(*run_cells(folder, scores, benchmark))
        context = sections_for(benchmark).context(scores, folder) or RunContext()
        for cells in context_cells(scores, context):
            if cells not in shown:
                shown.add(cells)
                table.add_row(*cells)
        notes += [escape(note) for note in context.notes if escape(note) not in notes]
    if shown:
        notes.insert(0, "Rows marked `published` were scored by this package from another judge's released verdicts.")
    notes.append(escape(INTERVAL_NOTE))
    table.caption = "\n".join(notes)
    return table


def run_cells(folder: Path, scores: dict[str, Any], benchmark: Benchmark) -> tuple[str, ...]:
    """A run's row; every cell escaped, as a model or folder name may hold rich markup such as `[bold]`."""
    headline, details = sections_for(benchmark).headline(scores)
    cells = (
        str(folder),
        f"{scores['benchmark']}:{scores.get('config')}",
        str(scores["model"]),
        str(scores.get("judge")),
        f"{scores['n_samples']} (this run)",
        headline,
        scale_of(benchmark),
        details,
        str(scores.get("n_unscored", 0)),
        "yes" if scores.get("complete", True) else "no",
    )
    return tuple(escape(cell) for cell in cells)


def context_cells(scores: dict[str, Any], context: RunContext) -> list[tuple[str, ...]]:
    benchmark = f"{scores['benchmark']}:{scores.get('config')}"
    rows = [
        ("published", benchmark, r.model, f"{r.judge}: another judge", r.prompts)
        + (fmt_interval(r.score, r.interval), r.scale or "scale not stated", r.details, "-", "-")
        for r in context.rows
    ]
    return [tuple(escape(cell) for cell in cells) for cells in rows]


def print_leaderboard(folders: list[Path]) -> None:
    console = Console()
    console.width = max(console.width, 180)
    console.print(leaderboard(folders))


# ----- the closing summary ------------------------------------------------------------------------------------
def scored_counts(scores: dict[str, Any]) -> str:
    """Scored and unscored counts in the benchmark's unit (rows or outputs; LongGenBench-style judged checks)."""
    if "n_scored" in scores:
        return f"scored {scores['n_scored']}, unscored {scores.get('n_unscored', 0)}"
    return f"judged checks {scores.get('n_judged', 0)}, unscored checks {scores.get('n_unscored', 0)}"


def summary_lines(folder: Path, seconds: dict[str, float], judged_reasons: dict[str, int]) -> list[str]:
    """What happened to one run folder: its figure and scale, its counts and unscored reasons, stage times, report.

    `judged_reasons` (unscored reasons of the judgements) stand in when scores.json lists none of its own.
    """
    scores = load_scores(folder)
    benchmark = benchmark_of(scores)
    headline, details = sections_for(benchmark).headline(scores)
    reasons = scores.get("unscored_reasons") or judged_reasons
    generations, judge_calls = scores.get("n_pending_generations", 0), scores.get("n_pending_judge_calls", 0)
    pending = f"; pending: {generations} generations, {judge_calls} judge calls" if generations or judge_calls else ""
    report = Path(folder) / "report.md"
    return [
        f"{scores['benchmark']}:{scores.get('config')}  model {scores['model']}, judge {scores.get('judge')}",
        f"  score {headline} (scale {scale_of(benchmark)}; {details})",
        f"  {scored_counts(scores)}{pending}",
        *[f"  unscored: {n} x {reason}" for reason, n in reasons.items()],
        "  wall time: " + ", ".join(f"{stage} {seconds[stage]:.1f} s" for stage in STAGES if stage in seconds),
        f"  report: {report}" if report.is_file() else "  report: not written",
    ]


__all__ = [
    "fmt",
    "leaderboard",
    "load_scores",
    "print_leaderboard",
    "read_timings",
    "save_invocation",
    "summary_lines",
    "write_report",
]
