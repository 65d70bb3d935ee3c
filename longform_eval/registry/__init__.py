"""One registry: every benchmark and backend is declared once and found through entry points.

A declaration names its parts by reference ("module:attribute") and loads them only when asked, so that reading
the registry imports no layer of the toolkit. The package's own declarations are in `builtin`; another package
adds its own under the entry-point groups `longform_eval.benchmarks` and `longform_eval.backends`
(docs/benchmarks-and-scoring.md).
"""

from .declarations import BackendDeclaration, BenchmarkDeclaration, DatasetDeclaration, load_reference
from .discovery import (
    BACKEND_GROUP,
    BENCHMARK_GROUP,
    backend_declaration,
    backend_declarations,
    benchmark_declaration,
    benchmark_declarations,
    dataset_declaration,
    dataset_declarations,
)

__all__ = [
    "BACKEND_GROUP",
    "BENCHMARK_GROUP",
    "BackendDeclaration",
    "BenchmarkDeclaration",
    "DatasetDeclaration",
    "backend_declaration",
    "backend_declarations",
    "benchmark_declaration",
    "benchmark_declarations",
    "dataset_declaration",
    "dataset_declarations",
    "load_reference",
]
