"""LongGenBench's presentation: CR, STIC-1, STIC-2 and wAvg per type and scenario, and STIC by sub-task position."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .base import ReportSection, Sections
from .plots import line_plot, split_plots
from .tables import fmt, fmt_figure, fmt_figures, fmt_interval, markdown_table

FIGURE_LABELS = {"cr": "CR", "stic1": "STIC-1", "stic2": "STIC-2", "wavg": "wAvg"}  # scores.json key: name


def group_cells(scores: dict[str, Any], name: str, group: dict[str, Any]) -> tuple[str, str, str]:
    """A group's CR, STIC-1 and STIC-2, each with its interval (`group_intervals` of scores.json; a scores.json from
    before them: the figures alone; a type has no CR: `-`)."""
    if "group_intervals" not in scores:
        return fmt(group.get("cr")), fmt(group["stic1"]), fmt(group["stic2"])
    found = scores["group_intervals"].get(name) or {}
    return tuple(
        "-" if group.get(key) is None and key == "cr" else fmt_interval(group.get(key), found.get(key))
        for key in ("cr", "stic1", "stic2")
    )


class LongGenBenchSections(Sections):
    def report_section(self, scores: dict[str, Any], folder: Path) -> ReportSection:
        if not scores.get("n_items"):
            return ReportSection(["No generations to score yet."])
        lines = [
            f"**{fmt_figures(scores, FIGURE_LABELS)}, Len {fmt(scores['length'], 0)}** (CR, STIC and wAvg in "
            f"percent, {self.benchmark.headline_scale}; checks {scores['n_checks']}, judged {scores['n_judged']}, yes "
            f"{scores['n_yes']}, unscored {scores['n_unscored']}).",
            "",
            *markdown_table(
                ("group", "CR [95% CI]", "STIC-1 [95% CI]", "STIC-2 [95% CI]", "checks", "judged"),
                [
                    (name, *group_cells(scores, name, g), g["n_checks"], g["n_judged"])
                    for name, g in {**scores["by_type"], **scores["by_scenario"]}.items()
                ],
            ),
            "",
            "Intervals over items (an item's checks are answered by one output): a type pools its checks over every "
            "item, a scenario rests on its items.",
        ]
        bins = scores["by_position"]
        plot = line_plot(
            folder / "stic_by_position.png",
            [(b["start"] + b["end"]) / 2 for b in bins],
            {"STIC-1 (yes / judged)": [b["stic1"] for b in bins], "STIC-2 (yes / all)": [b["stic2"] for b in bins]},
            xlabel="relative sub-task position",
            ylabel="percent",
            title="Instruction following as the output grows",
            unit="position bins with checks",
        )
        plots, absent = split_plots([plot])
        return ReportSection(lines + ([""] + absent if absent else []), plots)

    def headline(self, scores: dict[str, Any]) -> tuple[str, str]:
        details = f"CR {fmt(scores.get('cr'))} STIC-1 {fmt(scores.get('stic1'))} STIC-2 {fmt(scores.get('stic2'))}"
        return fmt_figure(scores, "wavg", scores.get("wavg")), details
