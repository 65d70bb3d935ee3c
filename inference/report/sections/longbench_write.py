"""LongBench-Write's presentation: S with S_l and S_q per required-length bucket and language, and the length plot."""

from __future__ import annotations

from pathlib import Path

from longform_eval.common.plurals import counted

from ...benchmarks.layouts import LongBenchWriteLayout, LongBenchWritePart
from ...benchmarks.longbench_write import LENGTH_UNIT
from ...benchmarks.run_scores import RunScores
from .base import ReportSection, Sections, shown_model
from .plots import Plot, loglog_scatter, split_plots
from .tables import fmt, fmt_figure, fmt_figures, markdown_table

FIGURE_LABELS = {"s": "S", "s_l": "S_l", "s_q": "S_q"}  # scores.json key: printed name


def part_row(name: str, part: LongBenchWritePart) -> tuple:
    """A bucket's or a language's row: S_l and S_q with their 95% intervals."""
    return (name, part.n_items, fmt_figure(part, "s_l", part.s_l), part.n_scored, fmt_figure(part, "s_q", part.s_q))


class LongBenchWriteSections(Sections):
    def report_section(self, scores: RunScores, folder: Path) -> ReportSection:
        figures: LongBenchWriteLayout = scores.figures
        if not figures.n_items:
            return ReportSection(["No generations to score yet."])
        lines = [
            f"**{fmt_figures(scores, FIGURE_LABELS)}** "
            f"(S = (S_l + S_q) / 2; S_l: length following over {counted(figures.n_items, 'output')}, length = "
            f"{LENGTH_UNIT}; S_q: six judged dimensions over {counted(figures.n_scored, 'scored output')}, "
            f"unscored {figures.n_unscored}).",
            "",
            *markdown_table(
                ("required length", "outputs", "S_l [95% CI]", "scored", "S_q [95% CI]"),
                [part_row(n, b) for n, b in figures.buckets.items()],
            ),
            "",
            *markdown_table(("dimension", "score (0..100)"), [(d, fmt(v)) for d, v in figures.dimensions.items()]),
        ]
        if figures.by_language:
            lines += [
                "",
                *markdown_table(
                    ("language", "outputs", "S_l [95% CI]", "scored", "S_q [95% CI]"),
                    [part_row(n, p) for n, p in figures.by_language.items()],
                ),
            ]
        if "part_interval_method" in figures.model_fields_set:
            lines += ["", f"Bucket and language intervals: {figures.part_interval_method}."]
        if figures.buckets.get(">20k"):
            lines += [
                "",
                "`>20k` holds required lengths above 20,000 (the ruler probe's 30,000), beyond the paper's buckets.",
            ]
        if figures.unscored_reasons:
            lines += ["", "Unscored reasons:", *[f"- {r}: {n}" for r, n in figures.unscored_reasons.items()]]
        plots, absent = split_plots([self.length_plot(scores, folder)])
        return ReportSection(lines + absent, plots)

    def length_plot(self, scores: RunScores, folder: Path) -> Plot:
        rows = scores.figures.rows
        return loglog_scatter(
            folder / "length_scatter.png",
            {"outputs": ([r.required for r in rows], [r.length for r in rows])},
            xlabel=f"required length ({LENGTH_UNIT})",
            ylabel="output length",
            title=f"Length following: {shown_model(folder, scores)}",
        )

    def headline(self, scores: RunScores) -> tuple[str, str]:
        figures: LongBenchWriteLayout = scores.figures
        return fmt_figure(scores, "s", figures.s), f"S_l {fmt(figures.s_l)} S_q {fmt(figures.s_q)}"
