"""A run as a repo holds it (or will once pushed): its folder there, config.yaml, scores.json and files."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..benchmarks.run_scores import RunScores
from ..report.markdown import benchmark_of, scale_of
from ..report.sections import sections_for


@dataclass
class RunInfo:
    """A run in a repo: its folder there ("" the root), config.yaml and scores.json as stored, its files, and the
    date (YYYY-MM-DD) its latest command started, from timings.json (None when not recorded)."""

    path: str
    config: dict[str, Any]
    scores: RunScores
    files: list[str]
    date: str | None = None

    @property
    def benchmark(self) -> str:
        return f"{self.scores.benchmark}:{self.scores.config}"

    @property
    def title(self) -> str:
        return f"{self.benchmark}, model {self.scores.model}, judge {self.scores.judge}"

    def headline(self) -> tuple[str, str, str]:
        """(the figure with its interval, its scale, its breakdown), as the report and leaderboard print them."""
        benchmark = benchmark_of(self.scores)
        figure, details = sections_for(benchmark).headline(self.scores)
        return figure, scale_of(benchmark), details


__all__ = ["RunInfo"]
