"""Benchmarks by name: this package's own, and any other package's through the entry-point group
`longform_eval.benchmarks` (an entry point names a module that registers, or a `Benchmark` subclass)."""

from __future__ import annotations

import importlib
import warnings
from importlib.metadata import entry_points

from .base import Benchmark

ENTRY_POINT_GROUP = "longform_eval.benchmarks"
BUILTIN_MODULES = ("hellobench", "hellobench_pairwise", "longbench_write", "longgenbench", "tencentllmeval")
_REGISTRY: dict[str, type[Benchmark]] = {}
_discovered = False


def register_benchmark(cls: type[Benchmark]) -> type[Benchmark]:
    """Class decorator: make `cls` available as `--benchmark cls.name`."""
    if not (isinstance(cls, type) and issubclass(cls, Benchmark)):
        raise TypeError(f"{cls!r} is not a Benchmark subclass")
    known = _REGISTRY.get(cls.name)
    if known is not None and known.__qualname__ != cls.__qualname__:
        raise ValueError(f"benchmark {cls.name!r} is registered twice: {known.__module__} and {cls.__module__}")
    _REGISTRY[cls.name] = cls
    return cls


def discover() -> None:
    global _discovered
    if _discovered:
        return
    _discovered = True
    for module in BUILTIN_MODULES:
        importlib.import_module(f"{__package__}.{module}")
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        try:
            loaded = entry.load()
        except Exception as error:  # another package's broken plug-in must not break every command
            warnings.warn(f"benchmark entry point {entry.name} = {entry.value} failed to load: {error}", stacklevel=2)
            continue
        if isinstance(loaded, type) and issubclass(loaded, Benchmark):
            register_benchmark(loaded)


def benchmark_names() -> list[str]:
    discover()
    return sorted(_REGISTRY)


def benchmark_class(name: str) -> type[Benchmark]:
    discover()
    if name not in _REGISTRY:
        raise ValueError(f"unknown benchmark {name!r}; choose one of {', '.join(sorted(_REGISTRY))}")
    return _REGISTRY[name]


def create_benchmark(
    name: str, config: str | None = None, args: dict | None = None, model: str | None = None
) -> Benchmark:
    """`create_benchmark("longgenbench", "short", {"verdict_rule": "strict"})`; `model`: the model under test (as
    `BACKEND:MODEL` names it after the colon), for benchmarks whose upstream settings depend on it."""
    benchmark = benchmark_class(name)(config, args)
    benchmark.model = model
    return benchmark
