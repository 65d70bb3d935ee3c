"""A benchmark's presentation: its section of report.md, its headline, the published figures shown beside it.

A presentation class is built from the benchmark instance (`HelloBenchSections(benchmark)`) and reads only
scores.json and the benchmark's core hooks. `Sections` is the default for a benchmark that declares none: a section
listing its figures with their intervals, and its headline (`Benchmark.headline_of`) first.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...benchmarks import Benchmark
from ...benchmarks.run_scores import RunScores
from .context import RunContext
from .tables import fmt_figure


@dataclass
class ReportSection:
    """What a benchmark adds to report.md: markdown lines and the plots it wrote."""

    lines: list[str]
    plots: list[Path] = field(default_factory=list)


class Sections:
    """Subclass per benchmark and name the subclass as the declaration's `presentation`."""

    def __init__(self, benchmark: Benchmark):
        self.benchmark = benchmark

    def report_section(self, scores: RunScores, folder: Path) -> ReportSection:
        """The benchmark's figures with their 95% intervals, one line each."""
        names = self.figure_names(scores)
        if not names:
            return ReportSection(["No figures to show: the benchmark declares no presentation and no headline figure."])
        return ReportSection([f"- **{name}**: {fmt_figure(scores, name, self.value(scores, name))}" for name in names])

    def headline(self, scores: RunScores) -> tuple[str, str]:
        """(the headline figure with its interval, a one-line breakdown) for report.md and the leaderboard."""
        names = self.figure_names(scores)
        if not names:
            return "-", "no headline figure"
        return fmt_figure(scores, names[0], self.value(scores, names[0])), names[0]

    def context(self, scores: RunScores, folder: Path) -> RunContext | None:
        """Figures to show beside this run's, e.g. published models scored by another judge (default: none)."""
        return None

    def figure_names(self, scores: RunScores) -> list[str]:
        """The headline figure first (`Benchmark.headline_of`), then the others."""
        names = list(scores.intervals)
        first = self.benchmark.headline_of(names)
        return ([first] if first else []) + [name for name in names if name != first]

    def value(self, scores: RunScores, name: str) -> Any:
        """Figure `name` where the benchmark keeps it in scores.json (`figure_path`); None when absent."""
        return self.benchmark.figure_value(scores.figures, name)


def shown_model(folder: Path, scores: RunScores) -> str:
    """The model as a plot's title names it: the run's display name (config.yaml), else scores.json's model id."""
    from ...runner.folder import CONFIG_FILE, run_labels

    return run_labels(folder)[0] if (Path(folder) / CONFIG_FILE).is_file() else scores.model
