"""Presentation layer (optional): the benchmark's section of report.md."""

from __future__ import annotations

from pathlib import Path

from longform_eval.inference.benchmarks.run_scores import RunScores
from longform_eval.inference.report.sections import ReportSection, Sections


class ToyPlugSections(Sections):
    def report_section(self, scores: RunScores, folder: Path) -> ReportSection:
        figures = scores.figures  # no `scores_layout` declared: its figures as they are in scores.json
        return ReportSection([f"**Words repeated: {figures.accuracy:.1f}%** of {figures.n_scored}"])
