"""Each benchmark's presentation, found through its declaration (`longform_eval.registry`): `sections_for(benchmark)`.

A benchmark whose declaration names no presentation, or that is not declared (registered at run time), gets the
generic `Sections`, so that every benchmark has a report.
"""

from __future__ import annotations

from longform_eval.registry import benchmark_declaration

from ...benchmarks import Benchmark
from .base import ReportSection, Sections


def sections_for(benchmark: Benchmark) -> Sections:
    try:
        presentation = benchmark_declaration(benchmark.name).load_presentation()
    except ValueError:  # not declared: registered at run time
        presentation = None
    return (presentation or Sections)(benchmark)


__all__ = ["ReportSection", "Sections", "sections_for"]
