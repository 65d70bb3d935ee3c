"""report.md and plots for a run folder, a side-by-side leaderboard of several runs, and a run's closing summary.

The run's counts, deviations and stage times are common to every benchmark; the figures, tables and plots are the
benchmark's presentation (`sections_for(benchmark)`: `report_section`, `headline`; `Benchmark.headline_scale`), and so
are the published figures shown beside them (its `context`).
"""

from __future__ import annotations

from pathlib import Path

from rich import box
from rich.cells import cell_len
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from longform_eval.common.atomic import write_text_atomic
from longform_eval.common.plurals import counted
from longform_eval.common.shown import markdown_cell

from ..benchmarks import Benchmark, create_benchmark
from ..benchmarks.layouts import field_value
from ..benchmarks.run_scores import RunScores
from ..runner.folder import run_labels
from ..runner.scoring import same_model
from ..scrubbed_output import HarmlessConsole, scrubbed_line
from .calibration_view import calibration_lines
from .freshness import mark, up_to_date
from .scores_file import load_scores
from .sections import sections_for
from .sections.context import RunContext, agreement_applies, context_lines
from .sections.tables import fmt, fmt_interval
from .timings import read_timings, save_invocation, timing_lines
from .uncertainty import interval_sentences, judge_temperature, variance_lines


def benchmark_of(scores: RunScores) -> Benchmark:
    return create_benchmark(scores.benchmark, scores.config)


def scale_of(benchmark: Benchmark) -> str:
    return benchmark.headline_scale or "scale not stated"


def scale_note(benchmark: Benchmark, details: str) -> str:
    """`scale -300..100; open 100.00 summ ...`, or the scale alone when there are no details (nothing scored)."""
    return f"scale {scale_of(benchmark)}; {details}" if details.strip() else f"scale {scale_of(benchmark)}"


def write_report(folder: str | Path) -> Path:
    """The run's report.md and plots, unless report.md was written from its inputs as they are now (`freshness`)."""
    folder = Path(folder)
    if up_to_date(folder):
        return folder / "report.md"
    scores = load_scores(folder)
    invocations = read_timings(folder)  # read (and checked) before any plot is drawn
    benchmark = benchmark_of(scores)
    sections = sections_for(benchmark)
    headline, details = sections.headline(scores)
    model, judge = run_labels(folder)
    lines = [
        f"# {markdown_cell(scores.benchmark)}:{markdown_cell(scores.config)}: {markdown_cell(model)}",
        "",
        f"Judge: {markdown_cell(judge)}.",
        "",
        f"Headline: **{headline}** ({scale_note(benchmark, details)}).",
        *[line for sentence in interval_sentences(scores) for line in ("", sentence)],
    ]
    lines += [
        "",
        f"Samples: {scores.n_samples}; generated: {scores.n_generated}; "
        f"truncated generations (hit max_new_tokens): {scores.n_truncated_generations}.",
        "",
    ]
    if not scores.complete:
        lines += [
            f"**Incomplete run**: {counted(scores.n_pending_generations, 'generation')} and "
            f"{counted(scores.n_pending_judge_calls, 'judge call')} are still pending (failed calls are "
            "logged in failures.jsonl); the figures below cover what is done. Run the same command again to finish.",
            "",
        ]
    if scores.deviations:
        lines += [
            "**Deviations from the paper's settings** (scores are not comparable with the paper):",
            *[f"- {markdown_cell(d)}" for d in scores.deviations],
            "",
        ]
    if scores.parser_rescues:
        rescues = ", ".join(f"{name} {n}" for name, n in scores.parser_rescues.items())
        lines += [f"Verdicts saved by the lenient parser: {rescues}.", ""]
    section = sections.report_section(scores, folder)
    lines += [*section.lines, "", *[f"![{p.stem}]({p.name})" for p in section.plots]]
    if scores.has_intervals:  # also where no figure has one: judge noise is measured apart from the prompts' spread
        lines += ["", *variance_lines(scores, benchmark, judge_temperature(folder))]
    lines += calibration_lines(folder)
    context = sections.context(scores, folder)
    if context is not None:
        lines += ["", *context_lines(context, scores.judge)]
    body = "\n".join([*lines, *timing_lines(invocations), ""]) + "\n"
    return write_text_atomic(folder / "report.md", f"{body}{mark(folder, body)}\n")


# ----- the leaderboard ------------------------------------------------------------------------------------------
COLUMNS = ("run", "benchmark", "model", "judge", "prompts", "score", "scale", "details", "unscored", "complete")
# At a width that cannot hold them all, columns are kept in this order, the rest left out (and named under the table).
PRIORITY = ("score", "model", "run", "prompts", "benchmark", "judge", "scale", "complete", "unscored", "details")
FOLDED = {"run", "model", "judge", "benchmark"}  # names and paths: folded anywhere (no character lost), not cut
FOLD_MIN = 16  # the narrowest such a column is folded to
GAP = 3  # cells between two columns: padding, rule, padding
INTERVAL_NOTE = (
    "score: the figure [its 95% interval] (each run's report.md says how it was computed). Whether two runs differ "
    "is told by their paired comparison on shared prompts (comparisons.json), not by their order here."
)


def leaderboard(folders: list[Path], width: int | None = None) -> Table:
    """One row per run, its headline figure with its scale, and after it the published rows of its context (each
    shown once, marked with their own judge and prompts) where the run's judge is the one they were scored from.

    `width` (a terminal's): the columns that fit it, in `PRIORITY` order, each wrapped or folded, never cut; the score
    (a figure and its interval) always on one line, whole. None: every column at its full width."""
    rows: list[tuple[str, ...]] = []
    shown: set[tuple[str, ...]] = set()
    notes: list[str] = []
    for folder in folders:
        scores = load_scores(folder)
        benchmark = benchmark_of(scores)
        rows.append(run_cells(folder, scores, benchmark))
        beside = published_apply(scores, benchmark.paper_settings().judge_model)
        wanted = beside or agreement_applies(scores.judge)  # else the context (published figures) is not read
        context = (sections_for(benchmark).context(scores, folder) if wanted else None) or RunContext()
        for cells in context_cells(scores, context) if beside else []:
            if cells not in shown:
                shown.add(cells)
                rows.append(cells)
        agreement = [context.agreement] if agreement_applies_to(scores, context) else []
        said = (context.notes if beside else []) + agreement
        notes += [escape(note) for note in said if escape(note) not in notes]
    if shown:
        notes.insert(0, "Rows marked `published` were scored by this package from another judge's released verdicts.")
    notes.append(escape(INTERVAL_NOTE))
    widths = column_widths(rows, width)
    left_out = [column for column in COLUMNS if column not in widths]
    if left_out:
        notes.append(f"Left out at {width} columns: {', '.join(left_out)} (report.md has them; a wider terminal too).")
    return board_table(rows, widths, notes)


def published_apply(scores: RunScores, judge_model: str | None) -> bool:
    """Published figures rank beside a run only where its judge is the model their verdicts came from (the paper's
    `judge_model`: the same test as scores.json's `judge model` deviation); under another judge they are context
    (report.md)."""
    judge = scores.judge or ""
    if not judge_model or ":" not in judge:
        return False
    return same_model(judge.partition(":")[2], judge_model)


def agreement_applies_to(scores: RunScores, context: RunContext) -> bool:
    return bool(context.agreement) and agreement_applies(scores.judge)


def column_widths(rows: list[tuple[str, ...]], width: int | None) -> dict[str, int]:
    """Column -> content width: the columns that fit `width` in `PRIORITY` order, each at least its longest word
    (`FOLD_MIN` for a folded one; the whole score), the room left given out in the same order."""
    plain = [[Text.from_markup(cell).plain for cell in row] for row in rows]
    longest: dict[str, int] = {}
    narrowest: dict[str, int] = {}
    for index, column in enumerate(COLUMNS):
        texts = [column, *(row[index] for row in plain)]
        longest[column] = max(cell_len(line) for text in texts for line in text.splitlines() or [""])
        word = max((cell_len(w) for text in texts for w in text.split()), default=1)
        if column == "score":
            narrowest[column] = longest[column]
        elif column in FOLDED:
            narrowest[column] = min(longest[column], max(FOLD_MIN, len(column)))
        else:
            narrowest[column] = word
    if width is None:
        return longest
    chosen: list[str] = []
    for column in PRIORITY:
        needed = sum(narrowest[c] for c in chosen) + narrowest[column] + GAP * len(chosen)
        if not chosen or needed <= width:
            chosen.append(column)
    while True:
        widths = given_out(chosen, narrowest, longest, width)
        folded = sum(longest[c] - widths[c] for c in chosen if c in FOLDED)
        last = chosen[-1]
        # a name folded for want of a few cells: the last column kept (not a name, not the score) gives them up
        if not folded or last in FOLDED or last == "score" or widths[last] + GAP < folded:
            return {column: widths[column] for column in COLUMNS if column in widths}
        chosen.pop()


def given_out(chosen: list[str], narrowest: dict[str, int], longest: dict[str, int], width: int) -> dict[str, int]:
    """Each chosen column at its narrowest, the room left given out up to each one's longest: first to the names (so
    that they are not folded), then to the others (which wrap at words), each in priority order."""
    widths = {column: narrowest[column] for column in chosen}
    room = width - sum(widths.values()) - GAP * (len(chosen) - 1)
    for column in sorted(chosen, key=lambda c: c not in FOLDED):
        grow = max(0, min(room, longest[column] - widths[column]))
        widths[column] += grow
        room -= grow
    return widths


def board_table(rows: list[tuple[str, ...]], widths: dict[str, int], notes: list[str]) -> Table:
    table = Table(
        title="leaderboard",
        box=box.SIMPLE_HEAD,
        show_edge=False,
        pad_edge=False,
        caption="\n".join(notes),
        caption_justify="left",
    )
    for column, size in widths.items():
        # the score: a figure and its interval on one line; the rest wrap at words, a word too long folded
        table.add_column(column, width=size, no_wrap=column == "score", overflow="fold")
    keep = [COLUMNS.index(column) for column in widths]
    for row in rows:
        table.add_row(*(Text.from_markup(row[index]) for index in keep))
    return table


def run_cells(folder: Path, scores: RunScores, benchmark: Benchmark) -> tuple[str, ...]:
    """A run's row; every cell escaped, as a model or folder name may hold rich markup such as `[bold]`."""
    headline, details = sections_for(benchmark).headline(scores)
    cells = (
        str(folder),
        f"{scores.benchmark}:{scores.config}",
        *map(str, run_labels(folder)),
        f"{scores.n_samples} (this run)",
        headline,
        scale_of(benchmark),
        details,
        str(field_value(scores.figures, "n_unscored") or 0),
        "yes" if scores.complete else "no",
    )
    return tuple(escape(scrubbed_line(cell)) for cell in cells)


def context_cells(scores: RunScores, context: RunContext) -> list[tuple[str, ...]]:
    benchmark = f"{scores.benchmark}:{scores.config}"
    rows = [
        ("published", benchmark, r.model, r.judge, r.prompts)  # another judge's: the caption says so
        + (fmt_interval(r.score, r.interval), r.scale or "scale not stated", r.details, "-", "-")
        for r in context.rows
    ]
    return [tuple(escape(scrubbed_line(cell)) for cell in cells) for cells in rows]


def print_leaderboard(folders: list[Path]) -> None:
    """The leaderboard at the terminal's width (`COLUMNS` wins; 80 where there is no terminal)."""
    console = HarmlessConsole("stdout")  # its cells were made harmless (`run_cells`): rich's escapes only
    console.print(leaderboard(folders, console.width))


__all__ = [
    "fmt",
    "leaderboard",
    "load_scores",
    "print_leaderboard",
    "read_timings",
    "save_invocation",
    "write_report",
]
