"""Benchmarks by name, from their declarations (`longform_eval.registry`): each plug-in module is imported only when
its benchmark is asked for. `register_benchmark` adds a class at run time (a plug-in without a declaration)."""

from __future__ import annotations

from longform_eval.registry import BENCHMARK_GROUP, BenchmarkDeclaration, benchmark_declarations

from .base import Benchmark

ENTRY_POINT_GROUP = BENCHMARK_GROUP
_REGISTRY: dict[str, type[Benchmark]] = {}  # registered at run time, and declared plug-ins once loaded


def register_benchmark(cls: type[Benchmark]) -> type[Benchmark]:
    """Class decorator: make `cls` available as `--benchmark cls.name` (its module must be imported first)."""
    if not (isinstance(cls, type) and issubclass(cls, Benchmark)):
        raise TypeError(f"{cls!r} is not a Benchmark subclass")
    known = _REGISTRY.get(cls.name)
    if known is not None and known.__qualname__ != cls.__qualname__:
        raise ValueError(f"benchmark {cls.name!r} is registered twice: {known.__module__} and {cls.__module__}")
    _REGISTRY[cls.name] = cls
    return cls


def benchmark_names() -> list[str]:
    """Every declared and registered name; no plug-in module is imported."""
    return sorted({*benchmark_declarations(), *_REGISTRY})


def declared_class(declaration: BenchmarkDeclaration) -> type[Benchmark]:
    """The declaration's plug-in class, refused unless it is a `Benchmark` subclass of the declared name."""
    cls = declaration.load_plugin()
    if not (isinstance(cls, type) and issubclass(cls, Benchmark)):
        raise TypeError(f"benchmark {declaration.name!r}: its plugin {declaration.plugin} is not a Benchmark subclass")
    if getattr(cls, "name", None) != declaration.name:
        raise ValueError(
            f"benchmark {declaration.name!r}: its plugin {declaration.plugin} is named "
            f"{getattr(cls, 'name', None)!r}; the class's `name` must be the declared name"
        )
    return register_benchmark(cls)


def benchmark_class(name: str) -> type[Benchmark]:
    declaration = benchmark_declarations().get(name)
    if declaration is not None:
        return declared_class(declaration)
    if name not in _REGISTRY:
        raise ValueError(f"unknown benchmark {name!r}; choose one of {', '.join(benchmark_names())}")
    return _REGISTRY[name]


def create_benchmark(
    name: str, config: str | None = None, args: dict | None = None, model: str | None = None
) -> Benchmark:
    """`create_benchmark("longgenbench", "short", {"verdict_rule": "strict"})`; `model`: the model under test (as
    `BACKEND:MODEL` names it after the colon), for benchmarks whose upstream settings depend on it."""
    benchmark = benchmark_class(name)(config, args)
    benchmark.model = model
    return benchmark
