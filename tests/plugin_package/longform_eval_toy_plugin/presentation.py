"""Presentation layer (optional): the benchmark's section of report.md."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from longform_eval.inference.report.sections import ReportSection, Sections


class ToyPlugSections(Sections):
    def report_section(self, scores: dict[str, Any], folder: Path) -> ReportSection:
        return ReportSection([f"**Words repeated: {scores['accuracy']:.1f}%** of {scores['n_scored']}"])
