"""HelloBench's presentation: the HelloEval score per task and subcategory, two plots, and the released models'
figures scored from their released GPT-4o verdicts beside the run's."""

from __future__ import annotations

from pathlib import Path

from longform_eval.dataset_builder.hellobench import NAME as HELLOBENCH

from ...benchmarks.layouts import HelloBenchLayout
from ...benchmarks.run_scores import RunScores
from .base import ReportSection, Sections, shown_model
from .context import (
    RELEASED_JUDGE,
    ContextRow,
    Published,
    RunContext,
    agreement_line,
    configured_source,
    published_interval,
    released_figures_from,
    released_source,
)
from .plots import Plot, bar_plot, scatter_plot, split_plots
from .tables import fmt, fmt_bounds, fmt_figure, interval_of, markdown_table

CONTEXTS: dict[tuple, tuple[list[ContextRow], list[str]]] = {}  # published rows by (source, config, prompts)
MAX_CONTEXTS = 16


def task_details(figures: HelloBenchLayout) -> str:
    """Each task's score, in a few characters: `chat 12.50 summ -3.00 ...`."""
    return " ".join(f"{t[:4]} {fmt(group.score)}" for t, group in figures.tasks.items())


class HelloBenchSections(Sections):
    def report_section(self, scores: RunScores, folder: Path) -> ReportSection:
        figures: HelloBenchLayout = scores.figures
        lines = [
            f"**Overall HelloEval score: {fmt_figure(scores, 'overall', figures.overall)}** (mean of task scores, "
            f"-300..100; a task score is (mean row score - 75) x 4, so a row score of 75 maps to 0 and 0 to the floor "
            f"-300); scored rows {figures.n_scored}, unscored {figures.n_unscored}; mean word count "
            f"{fmt(figures.mean_word_count, 0)}.",
            "",
            *markdown_table(
                ("task", "score", "95% CI", "mean row score", "scored", "unscored", "words"),
                [
                    (t, fmt(g.score), fmt_bounds(interval_of(scores, t)), fmt(g.mean_row_score), g.n_scored)
                    + (g.n_unscored, fmt(g.mean_word_count, 0))
                    for t, g in figures.tasks.items()
                ],
            ),
            "",
            *markdown_table(
                ("subcategory", "mean row score (0..100)", "scored", "unscored"),
                [(n, fmt(g.mean_row_score), g.n_scored, g.n_unscored) for n, g in figures.subcategories.items()],
            ),
        ]
        if figures.unscored_reasons:
            lines += ["", "Unscored reasons:", *[f"- {r}: {n}" for r, n in figures.unscored_reasons.items()]]
        plots, absent = split_plots(self.plots(scores, folder))
        return ReportSection(lines + ([""] + absent if absent else []), plots)

    def plots(self, scores: RunScores, folder: Path) -> list[Plot]:
        figures: HelloBenchLayout = scores.figures
        tasks = {t: g.score for t, g in figures.tasks.items() if g.score is not None}
        found = {t: interval_of(scores, t) for t in tasks}
        bounds = {t: (b["low"], b["high"]) for t, b in found.items() if isinstance(b, dict)}
        rows = [r for r in figures.rows if r.row_score is not None]
        model = shown_model(folder, scores)  # the display name, not a file path
        return [
            bar_plot(
                folder / "score_per_task.png",
                tasks,
                ylabel="task score (-300..100)",
                title=f"HelloEval score per task: {model}" + (" (error bars: 95% CI)" if bounds else ""),
                unit="tasks with a score",
                bounds=bounds,
            ),
            scatter_plot(
                folder / "score_vs_words.png",
                [r.words for r in rows],
                [r.row_score for r in rows],
                xlabel="response words (nltk tokens)",
                ylabel="row score (0..100)",
                title="Score against length",
                unit="scored rows",
            ),
        ]

    def headline(self, scores: RunScores) -> tuple[str, str]:
        return fmt_figure(scores, "overall", scores.figures.overall), task_details(scores.figures)

    def context(self, scores: RunScores, folder: Path) -> RunContext:
        """The released models scored from their released GPT-4o verdicts, over all main prompts and over this run's
        (length-constrained prompts are other prompts: no same-prompt rows for them). Runs of one selection (a
        leaderboard's, a report's of several runs) share it: it is computed once per source, config and prompts."""
        main = not self.benchmark.config.startswith("length_constrained")
        ids = frozenset(r.id for r in scores.figures.rows) if main else None
        source = released_source(HELLOBENCH, configured_source(folder))
        key = (source, self.benchmark.config, ids)
        if key not in CONTEXTS:
            if len(CONTEXTS) >= MAX_CONTEXTS:
                CONTEXTS.clear()
            CONTEXTS[key] = self.published_rows(released_figures_from(source, ids), main)
        rows, notes = CONTEXTS[key]
        return RunContext(list(rows), list(notes), self.benchmark.paper_settings().judge_model, agreement_line())

    def published_rows(self, published: list[Published] | str, main: bool) -> tuple[list[ContextRow], list[str]]:
        """(the published rows, the notes under them): what is computed once per source, config and prompts."""
        if isinstance(published, str):
            return [], [published]
        other_prompts = "The released verdicts judge the main prompts, not this run's length-constrained ones."
        return [self.context_row(p) for p in published], ([] if main else [other_prompts])

    def context_row(self, published: Published) -> ContextRow:
        """The published figure with its interval, computed as a run's own (`published_interval`)."""
        figures = published.figures
        unscored = f", {figures.n_unscored} unscored" if figures.n_unscored else ""
        return ContextRow(
            f"{published.model} (published)",
            RELEASED_JUDGE,
            published.prompts + unscored,
            figures.overall,
            self.benchmark.headline_scale,
            task_details(figures),
            published_interval(self.benchmark, figures, "overall"),
        )
