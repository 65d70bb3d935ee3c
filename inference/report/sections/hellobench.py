"""HelloBench's presentation: the HelloEval score per task and subcategory, two plots, and the released models'
figures scored from their released GPT-4o verdicts beside the run's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from longform_eval.dataset_builder.hellobench import NAME as HELLOBENCH

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


class HelloBenchSections(Sections):
    def report_section(self, scores: dict[str, Any], folder: Path) -> ReportSection:
        lines = [
            f"**Overall HelloEval score: {fmt_figure(scores, 'overall', scores['overall'])}** (mean of task scores, "
            f"-300..100; a task score is (mean row score - 75) x 4, so a row score of 75 maps to 0 and 0 to the floor "
            f"-300); scored rows {scores['n_scored']}, unscored {scores['n_unscored']}; mean word count "
            f"{fmt(scores['mean_word_count'], 0)}.",
            "",
            *markdown_table(
                ("task", "score", "95% CI", "mean row score", "scored", "unscored", "words"),
                [
                    (t, fmt(s["score"]), fmt_bounds(interval_of(scores, t)), fmt(s["mean_row_score"]), s["n_scored"])
                    + (s["n_unscored"], fmt(s["mean_word_count"], 0))
                    for t, s in scores["tasks"].items()
                ],
            ),
            "",
            *markdown_table(
                ("subcategory", "mean row score (0..100)", "scored", "unscored"),
                [
                    (n, fmt(s["mean_row_score"]), s["n_scored"], s["n_unscored"])
                    for n, s in scores["subcategories"].items()
                ],
            ),
        ]
        if scores["unscored_reasons"]:
            lines += ["", "Unscored reasons:", *[f"- {r}: {n}" for r, n in scores["unscored_reasons"].items()]]
        plots, absent = split_plots(self.plots(scores, folder))
        return ReportSection(lines + ([""] + absent if absent else []), plots)

    def plots(self, scores: dict[str, Any], folder: Path) -> list[Plot]:
        tasks = {t: s["score"] for t, s in scores["tasks"].items() if s["score"] is not None}
        found = {t: interval_of(scores, t) for t in tasks}
        bounds = {t: (b["low"], b["high"]) for t, b in found.items() if isinstance(b, dict)}
        rows = [r for r in scores.get("rows", []) if r["row_score"] is not None]
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
                [r["words"] for r in rows],
                [r["row_score"] for r in rows],
                xlabel="response words (nltk tokens)",
                ylabel="row score (0..100)",
                title="Score against length",
                unit="scored rows",
            ),
        ]

    def headline(self, scores: dict[str, Any]) -> tuple[str, str]:
        details = " ".join(f"{t[:4]} {fmt(v['score'])}" for t, v in scores["tasks"].items())
        return fmt_figure(scores, "overall", scores["overall"]), details

    def context(self, scores: dict[str, Any], folder: Path) -> RunContext:
        """The released models scored from their released GPT-4o verdicts, over all main prompts and over this run's
        (length-constrained prompts are other prompts: no same-prompt rows for them). Runs of one selection (a
        leaderboard's, a report's of several runs) share it: it is computed once per source, config and prompts."""
        main = not self.benchmark.config.startswith("length_constrained")
        ids = frozenset(r["id"] for r in scores.get("rows", [])) if main else None
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
        scores = published.scores
        unscored = f", {scores['n_unscored']} unscored" if scores["n_unscored"] else ""
        return ContextRow(
            f"{published.model} (published)",
            RELEASED_JUDGE,
            published.prompts + unscored,
            scores["overall"],
            self.benchmark.headline_scale,
            self.headline(scores)[1],
            published_interval(self.benchmark, scores, "overall"),
        )
