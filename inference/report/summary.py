"""A run's closing summary: what `run` prints of each folder when it ends, wrapped to the terminal."""

from __future__ import annotations

import textwrap
from pathlib import Path

from ..benchmarks.layouts import field_value
from ..benchmarks.run_scores import RunScores
from ..runner.folder import run_labels
from .markdown import benchmark_of, load_scores, scale_note
from .sections import sections_for
from .timings import STAGES


def scored_counts(scores: RunScores) -> str:
    """Scored and unscored counts in the benchmark's unit (rows or outputs; LongGenBench-style judged checks)."""
    count = lambda name: field_value(scores.figures, name)  # noqa: E731
    if count("n_scored") is not None:
        return f"scored {count('n_scored')}, unscored {count('n_unscored') or 0}"
    return f"judged checks {count('n_judged') or 0}, unscored checks {count('n_unscored') or 0}"


def summary_lines(
    folder: Path, seconds: dict[str, float], judged_reasons: dict[str, int], width: int | None = None
) -> list[str]:
    """What happened to one run folder: its figure and scale, its counts and unscored reasons, stage times, report.

    `judged_reasons` (unscored reasons of the judgements) stand in when scores.json lists none of its own. `width`
    (a terminal's): each line wrapped to it, the figure and its interval never split.
    """
    scores = load_scores(folder)
    benchmark = benchmark_of(scores)
    headline, details = sections_for(benchmark).headline(scores)
    reasons = field_value(scores.figures, "unscored_reasons") or judged_reasons
    generations, judge_calls = scores.n_pending_generations, scores.n_pending_judge_calls
    pending = f"; pending: {generations} generations, {judge_calls} judge calls" if generations or judge_calls else ""
    report = Path(folder) / "report.md"
    model, judge = run_labels(folder)
    lines = [
        f"{scores.benchmark}:{scores.config}  model {model}, judge {judge}",
        f"  score {headline} ({scale_note(benchmark, details)})",
        f"  {scored_counts(scores)}{pending}",
        *[f"  unscored: {n} x {reason}" for reason, n in reasons.items()],
        "  wall time: " + ", ".join(f"{stage} {seconds[stage]:.1f} s" for stage in STAGES if stage in seconds),
        f"  report: {report}" if report.is_file() else "  report: not written",
    ]
    return [part for line in lines for part in wrapped(line, width, whole=(f"score {headline}",))]


NBSP = "\u00a0"


def wrapped(line: str, width: int | None, whole: tuple[str, ...] = ()) -> list[str]:
    """`line` in lines of at most `width` characters, continued two spaces further in than it starts; the `whole`
    fragments (a figure and its interval) never split, nor a word (a path stays whole to be copied, on a line of its
    own, even where that line is wider)."""
    if width is None or len(line) <= width:
        return [line]
    for fragment in whole:
        line = line.replace(fragment, fragment.replace(" ", NBSP))  # textwrap breaks at ASCII whitespace only
    indent = " " * (len(line) - len(line.lstrip(" ")) + 2)
    wrapper = textwrap.TextWrapper(width, subsequent_indent=indent, break_long_words=False, break_on_hyphens=False)
    return [part.replace(NBSP, " ") for part in wrapper.wrap(line)]
