"""LongGenBench's presentation: CR, STIC-1, STIC-2 and wAvg per type and scenario, and STIC by sub-task position."""

from __future__ import annotations

from pathlib import Path

from ...benchmarks.layouts import LongGenBenchGroup, LongGenBenchLayout, field_value
from ...benchmarks.run_scores import RunScores
from .base import ReportSection, Sections
from .plots import line_plot, split_plots
from .tables import fmt, fmt_figure, fmt_figures, fmt_interval, markdown_table

FIGURE_LABELS = {"cr": "CR", "stic1": "STIC-1", "stic2": "STIC-2", "wavg": "wAvg"}  # scores.json key: name


def group_cells(figures: LongGenBenchLayout, name: str, group: LongGenBenchGroup) -> tuple[str, str, str]:
    """A group's CR, STIC-1 and STIC-2, each with its interval (`group_intervals` of scores.json; a scores.json from
    before them: the figures alone; a type has no CR: `-`)."""
    kept = field_value(figures, "group_intervals")
    if kept is None:
        return fmt(group.cr), fmt(group.stic1), fmt(group.stic2)
    found = kept.get(name) or {}
    return tuple(
        "-" if getattr(group, key) is None and key == "cr" else fmt_interval(getattr(group, key), found.get(key))
        for key in ("cr", "stic1", "stic2")
    )


class LongGenBenchSections(Sections):
    def report_section(self, scores: RunScores, folder: Path) -> ReportSection:
        figures: LongGenBenchLayout = scores.figures
        if not figures.n_items:
            return ReportSection(["No generations to score yet."])
        lines = [
            f"**{fmt_figures(scores, FIGURE_LABELS)}, Len {fmt(figures.length, 0)}** (CR, STIC and wAvg in "
            f"percent, {self.benchmark.headline_scale}; checks {figures.n_checks}, judged {figures.n_judged}, yes "
            f"{figures.n_yes}, unscored {figures.n_unscored}).",
            "",
            *markdown_table(
                ("group", "CR [95% CI]", "STIC-1 [95% CI]", "STIC-2 [95% CI]", "checks", "judged"),
                [
                    (name, *group_cells(figures, name, g), g.n_checks, g.n_judged)
                    for name, g in {**figures.by_type, **figures.by_scenario}.items()
                ],
            ),
            "",
            "Intervals over items (an item's checks are answered by one output): a type pools its checks over every "
            "item, a scenario rests on its items.",
        ]
        bins = figures.by_position
        plot = line_plot(
            folder / "stic_by_position.png",
            [(b.start + b.end) / 2 for b in bins],
            {"STIC-1 (yes / judged)": [b.stic1 for b in bins], "STIC-2 (yes / all)": [b.stic2 for b in bins]},
            xlabel="relative sub-task position",
            ylabel="percent",
            title="Instruction following as the output grows",
            unit="position bins with checks",
        )
        plots, absent = split_plots([plot])
        return ReportSection(lines + ([""] + absent if absent else []), plots)

    def headline(self, scores: RunScores) -> tuple[str, str]:
        figures: LongGenBenchLayout = scores.figures
        details = f"CR {fmt(figures.cr)} STIC-1 {fmt(figures.stic1)} STIC-2 {fmt(figures.stic2)}"
        return fmt_figure(scores, "wavg", figures.wavg), details
