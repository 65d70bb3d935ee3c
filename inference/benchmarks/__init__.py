"""Benchmarks as plug-ins: the contract (rows, requests, parsing, scoring), the registry, and row selection.

The pairwise benchmarks and their helpers are the `pairwise` subpackage; presentation is `inference.report.sections`.
"""

from .base import (
    Benchmark,
    BenchmarkArgs,
    ChecklistRow,
    JudgeCall,
    LengthTarget,
    PairwiseBattle,
    PaperSettings,
    RunAnswers,
    RunReader,
    strip_think,
)
from .registry import ENTRY_POINT_GROUP, benchmark_class, benchmark_names, create_benchmark, register_benchmark
from .selection import Selection, rows_hash

__all__ = [
    "ENTRY_POINT_GROUP",
    "Benchmark",
    "BenchmarkArgs",
    "ChecklistRow",
    "JudgeCall",
    "LengthTarget",
    "PairwiseBattle",
    "PaperSettings",
    "RunAnswers",
    "RunReader",
    "Selection",
    "benchmark_class",
    "benchmark_names",
    "create_benchmark",
    "register_benchmark",
    "rows_hash",
    "strip_think",
]
