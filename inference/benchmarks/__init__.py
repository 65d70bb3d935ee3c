"""Benchmarks as plug-ins: the contract, the registry, and row selection."""

from .base import (
    Benchmark,
    BenchmarkArgs,
    JudgeCall,
    LengthTarget,
    PairwiseBattle,
    PaperSettings,
    ReportSection,
    strip_think,
)
from .registry import ENTRY_POINT_GROUP, benchmark_class, benchmark_names, create_benchmark, register_benchmark
from .selection import Selection, rows_hash

__all__ = [
    "ENTRY_POINT_GROUP",
    "Benchmark",
    "BenchmarkArgs",
    "JudgeCall",
    "LengthTarget",
    "PairwiseBattle",
    "PaperSettings",
    "ReportSection",
    "Selection",
    "benchmark_class",
    "benchmark_names",
    "create_benchmark",
    "register_benchmark",
    "rows_hash",
    "strip_think",
]
