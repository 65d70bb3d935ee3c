"""What a benchmark and a backend declare: each part by reference ("package.module:attribute"), loaded on demand."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any


def load_reference(reference: str) -> Any:
    """`"package.module:attribute"` -> the attribute (a dotted attribute path is followed)."""
    module_name, sep, attribute = reference.partition(":")
    if not sep or not module_name or not attribute:
        raise ValueError(f"{reference!r}: expected 'package.module:attribute'")
    value: Any = importlib.import_module(module_name)
    for part in attribute.split("."):
        value = getattr(value, part)
    return value


@dataclass(frozen=True)
class DatasetDeclaration:
    """A published dataset: the builder that makes its folder, its card template and the card's `license:`.

    `card` is "package:file" of a Jinja template in package data; `licence` is the Hub licence id the card declares.
    """

    name: str
    builder: str
    card: str
    licence: str

    def load_builder(self) -> Any:
        return load_reference(self.builder)

    def card_template(self) -> str:
        from importlib import resources

        package, _, file = self.card.partition(":")
        return resources.files(package).joinpath(file).read_text(encoding="utf-8")


@dataclass(frozen=True)
class BenchmarkDeclaration:
    """A benchmark as `--benchmark NAME` finds it: its core (rows, requests, parsing, scoring: a `Benchmark`
    subclass), its presentation (report sections and plots), the dataset its rows come from and its metric folder.

    `dataset` is a `DatasetDeclaration` of its own, or the name of another benchmark's dataset
    (hellobench-pairwise reads HelloBench's rows), or None (rows only from `--dataset`).
    `metric` is "package:folder" of its `evaluate` module folder in package data, or None.
    """

    name: str
    plugin: str
    presentation: str | None = None
    dataset: DatasetDeclaration | str | None = None
    metric: str | None = None

    def load_plugin(self) -> Any:
        return load_reference(self.plugin)

    def load_presentation(self) -> Any:
        return load_reference(self.presentation) if self.presentation else None

    @property
    def dataset_name(self) -> str | None:
        return self.dataset.name if isinstance(self.dataset, DatasetDeclaration) else self.dataset


@dataclass(frozen=True)
class BackendDeclaration:
    """A backend as `BACKEND:MODEL` names it: its class, the packages it needs with their minimum versions
    (checked when it is created, with one line naming what is missing), and the longform-eval extra that installs them
    (a plug-in's backend leaves `extra` out: the line then names the packages)."""

    name: str
    backend: str
    requires: tuple[tuple[str, str], ...] = ()  # (distribution, minimum version); "a|b": either distribution
    extra: str | None = None

    def load_backend(self) -> Any:
        return load_reference(self.backend)
