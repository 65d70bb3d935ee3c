"""The sampling design: the units a benchmark resamples (prompts, items) and the strata whose sizes stay fixed."""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np

from longform_eval.common.plurals import counted


def codes_of(labels: Sequence[Hashable]) -> tuple[np.ndarray, tuple[Hashable, ...]]:
    """Integer codes for the labels (0, 1, ... in order of first appearance) and the label of each code (read-only:
    the codes of a tuple of labels are computed once, as every figure and resample of a run's units asks for them)."""
    return tuple_codes(labels) if isinstance(labels, tuple) else label_codes(labels)


@functools.lru_cache(maxsize=256)
def tuple_codes(labels: tuple[Hashable, ...]) -> tuple[np.ndarray, tuple[Hashable, ...]]:
    return label_codes(labels)


def label_codes(labels: Sequence[Hashable]) -> tuple[np.ndarray, tuple[Hashable, ...]]:
    index: dict[Hashable, int] = {}
    codes = np.fromiter((index.setdefault(label, len(index)) for label in labels), dtype=np.int64, count=len(labels))
    codes.flags.writeable = False
    return codes, tuple(index)


@dataclass(frozen=True, eq=False)
class Design:
    """What a benchmark sampled: one stratum code per unit, and the names a report prints.

    A resample draws, within each stratum, as many units as the stratum holds, with replacement; a design
    without strata is one stratum. Build it with `Design.simple` or `Design.stratified`.
    """

    strata: np.ndarray
    stratum_names: tuple[Hashable, ...]
    unit: str = "prompt"
    stratified_by: str | None = None

    @classmethod
    def simple(cls, n_units: int, unit: str = "prompt") -> Design:
        """Resample `n_units` units with replacement, all in one stratum."""
        if isinstance(n_units, bool) or not isinstance(n_units, (int, np.integer)) or n_units < 1:
            raise ValueError(f"n_units must be a positive integer, got {n_units!r}")
        return cls(np.zeros(int(n_units), dtype=np.int64), ("all",), unit, None)

    @classmethod
    def stratified(cls, labels: Sequence[Hashable], unit: str = "prompt", by: str = "stratum") -> Design:
        """Resample within each stratum (one label per unit), keeping every stratum's size."""
        if isinstance(labels, (str, bytes)) or not len(labels):
            raise ValueError(f"stratum labels: expected one label per {unit}, got {labels!r:.40}")
        codes, names = codes_of(labels)
        return cls(codes, names, unit, by)

    @property
    def n_units(self) -> int:
        return len(self.strata)

    @property
    def order(self) -> np.ndarray:
        """The units sorted by stratum (stable): each stratum a contiguous slice, see `slices`."""
        return np.argsort(self.strata, kind="stable")

    @property
    def slices(self) -> list[tuple[int, int]]:
        """(start, stop) of each non-empty stratum in `order`."""
        stops = np.cumsum(np.bincount(self.strata))
        starts = stops - np.bincount(self.strata)
        return [(int(a), int(b)) for a, b in zip(starts, stops, strict=True) if b > a]

    def split(self, values: np.ndarray, keep: np.ndarray) -> list[np.ndarray]:
        """The `values` of each stratum (in the order of its code), only where `keep`."""
        return [values[keep & (self.strata == code)] for code in range(len(self.stratum_names))]

    def describe(self) -> str:
        """ "prompts, stratified by task" or "items": what a resample draws."""
        what = f"{self.unit}s"
        return f"{what}, stratified by {self.stratified_by}" if self.stratified_by else what

    def check_units(self, n_units: int, what: str) -> None:
        if n_units != self.n_units:
            raise ValueError(f"{what}: has {n_units} {self.unit}s, the design {self.n_units}")


def shared_units(ids_a: Sequence[Hashable], ids_b: Sequence[Hashable]) -> tuple[list[Hashable], np.ndarray, np.ndarray]:
    """The ids both runs have (in the order of `ids_a`) and where each sits in `ids_a` and in `ids_b`.

    Raises a ValueError naming the run for a repeated id.
    """
    for name, ids in (("ids_a", ids_a), ("ids_b", ids_b)):
        repeated = [unit for unit, count in Counter(ids).items() if count > 1]
        if repeated:
            raise ValueError(f"{name}: id {repeated[0]!r} appears more than once")
    where_b = {unit: position for position, unit in enumerate(ids_b)}
    shared = [(position, unit) for position, unit in enumerate(ids_a) if unit in where_b]
    index_a = np.array([position for position, _ in shared], dtype=np.int64)
    index_b = np.array([where_b[unit] for _, unit in shared], dtype=np.int64)
    return [unit for _, unit in shared], index_a, index_b


def cluster_sums(
    clusters: Sequence[Hashable], values: np.ndarray | Sequence[float]
) -> tuple[list[Hashable], np.ndarray]:
    """Sum per-observation values (checks) into their clusters (items), the units a clustered figure resamples.

    `values` is (observations,) or (observations, k); returns the cluster labels in order of first appearance and
    their sums, (clusters,) or (clusters, k).
    """
    codes, names = codes_of(clusters)
    array = np.asarray(values, dtype=float)
    if array.shape[0] != len(codes):
        raise ValueError(f"values: {counted(array.shape[0], 'observation')} for {counted(len(codes), 'cluster label')}")
    columns = array.reshape(len(codes), -1)
    sums = np.column_stack([np.bincount(codes, weights=column, minlength=len(names)) for column in columns.T])
    return list(names), sums.reshape(len(names), *array.shape[1:])
