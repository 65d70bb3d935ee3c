"""Declarations found through entry points (this package's own are entry points too, in pyproject.toml)."""

from __future__ import annotations

import functools
import warnings
from collections.abc import Iterator
from importlib.metadata import EntryPoint, entry_points

from . import builtin
from .declarations import BackendDeclaration, BenchmarkDeclaration, DatasetDeclaration

BENCHMARK_GROUP = "longform_eval.benchmarks"
BACKEND_GROUP = "longform_eval.backends"


def as_declaration(group: str, loaded: object, reference: str) -> object:
    """An older plug-in's benchmark entry point names its `Benchmark` subclass: read as a declaration of its plug-in
    alone (no dataset of its own); the class is checked when the benchmark is asked for."""
    if group == BENCHMARK_GROUP and isinstance(loaded, type) and isinstance(getattr(loaded, "name", None), str):
        return BenchmarkDeclaration(name=loaded.name, plugin=reference)  # type: ignore[attr-defined]
    return loaded


def warn_broken(group: str, entry: EntryPoint, problem: str) -> None:
    warnings.warn(f"{group} entry point {entry.name} = {entry.value} {problem}", stacklevel=4)


def loaded_entries(group: str) -> Iterator[tuple[EntryPoint, object]]:
    """(entry point, what it names) for each entry point of `group` that loads; one that raises is a warning."""
    for entry in entry_points(group=group):
        try:
            loaded = entry.load()
        except Exception as error:  # another package's broken plug-in must not break every command
            warn_broken(group, entry, f"failed to load: {error}")
            continue
        yield entry, loaded


def declared(group: str, kind: type, own: tuple[object, ...]) -> dict[str, object]:
    """This package's own declarations (also its entry points: listed here too, so that a stale install that lost
    its entry-point metadata still finds them), then every declaration of `kind` in entry-point `group`, by name.
    Another package's broken, mistyped or clashing entry point is a warning (the first declaration of a name is
    kept), never a failure of every command."""
    found: dict[str, object] = {declaration.name: declaration for declaration in own}  # type: ignore[attr-defined]
    for entry, loaded in loaded_entries(group):
        declaration = as_declaration(group, loaded, entry.value)
        if not isinstance(declaration, kind):
            warn_broken(group, entry, f"is no {kind.__name__}")
            continue
        known = found.setdefault(declaration.name, declaration)
        if known != declaration:
            warnings.warn(f"{group}: {declaration.name!r} is declared twice; {entry.value} is ignored", stacklevel=3)
    return dict(sorted(found.items()))


@functools.cache
def benchmark_declarations() -> dict[str, BenchmarkDeclaration]:
    return declared(BENCHMARK_GROUP, BenchmarkDeclaration, builtin.BENCHMARKS_DECLARED)  # type: ignore[return-value]


@functools.cache
def backend_declarations() -> dict[str, BackendDeclaration]:
    return declared(BACKEND_GROUP, BackendDeclaration, builtin.BACKENDS_DECLARED)  # type: ignore[return-value]


def dataset_declarations() -> dict[str, DatasetDeclaration]:
    """The datasets benchmarks declare (a benchmark reading another's rows declares none of its own)."""
    datasets = (d.dataset for d in benchmark_declarations().values())
    return {d.name: d for d in sorted((d for d in datasets if isinstance(d, DatasetDeclaration)), key=lambda d: d.name)}


def benchmark_declaration(name: str) -> BenchmarkDeclaration:
    declarations = benchmark_declarations()
    if name not in declarations:
        raise ValueError(f"unknown benchmark {name!r}; choose one of {', '.join(declarations)}")
    return declarations[name]


def backend_declaration(name: str) -> BackendDeclaration:
    declarations = backend_declarations()
    if name not in declarations:
        raise ValueError(f"unknown backend {name!r}; choose one of {', '.join(declarations)}")
    return declarations[name]


def dataset_declaration(name: str) -> DatasetDeclaration:
    declarations = dataset_declarations()
    if name not in declarations:
        raise ValueError(f"unknown dataset {name!r}; choose one of {', '.join(declarations)}")
    return declarations[name]
