"""The units a run scored (prompts, items), one row each: what a benchmark hands to the interval math.

A benchmark turns its scores into a `UnitTable` (ids, the strata a resample keeps, per-unit columns with NaN where
a unit is unscored) and builds its figures from the table's columns; the same table restricted to the units two
runs share gives their paired comparison, and several tables of one run (one per judge sample) average into the
table the run's figures rest on.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from longform_eval.common.plurals import counted

from .design import Design


@dataclass(frozen=True, eq=False)
class UnitTable:
    """One row per unit: `ids`, the `strata` a resample keeps (None: one stratum), and named per-unit columns."""

    ids: tuple[str, ...]
    columns: dict[str, np.ndarray]
    strata: tuple[str, ...] | None = None
    unit: str = "prompt"
    stratified_by: str | None = None
    constants: dict[str, object] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name, column in self.columns.items():
            if len(column) != len(self.ids):
                raise ValueError(
                    f"unit column {name!r}: {counted(len(column), 'value')} for {counted(len(self.ids), self.unit)}"
                )
        if self.strata is not None and len(self.strata) != len(self.ids):
            raise ValueError(f"strata: {counted(len(self.strata), 'label')} for {counted(len(self.ids), self.unit)}")

    def __len__(self) -> int:
        return len(self.ids)

    def __getitem__(self, name: str) -> np.ndarray:
        return self.columns[name]

    def design(self) -> Design:
        if self.strata is None:
            return Design.simple(len(self.ids), unit=self.unit)
        return Design.stratified(tuple(self.strata), unit=self.unit, by=self.stratified_by or "stratum")

    def subset(self, index: np.ndarray) -> UnitTable:
        """The rows at `index` (e.g. the units two runs share), in that order."""
        return UnitTable(
            ids=tuple(self.ids[i] for i in index),
            columns={name: column[index] for name, column in self.columns.items()},
            strata=None if self.strata is None else tuple(self.strata[i] for i in index),
            unit=self.unit,
            stratified_by=self.stratified_by,
            constants=self.constants,
        )


def mean_over_samples(tables: Sequence[UnitTable]) -> UnitTable:
    """Several tables of the same units (one per judge sample) -> one: each cell the mean of its finite values
    (NaN where no sample has one), so a unit's score is the mean of its scored samples."""
    first = tables[0]
    for table in tables[1:]:
        if table.ids != first.ids:
            raise ValueError("judge samples: the samples' tables hold different units")
    columns = {}
    for name in first.columns:
        stacked = np.vstack([np.asarray(table[name], dtype=float) for table in tables])
        finite = np.isfinite(stacked)
        counts = finite.sum(axis=0)
        total = np.where(finite, stacked, 0.0).sum(axis=0)
        columns[name] = np.divide(total, counts, out=np.full(len(first), np.nan), where=counts > 0)
    return UnitTable(first.ids, columns, first.strata, first.unit, first.stratified_by, first.constants)


def sample_matrix(tables: Sequence[UnitTable], column: str) -> np.ndarray:
    """(units, judge samples) of one column, NaN where a sample is unscored: the input of `judge_noise`."""
    return np.column_stack([np.asarray(table[column], dtype=float) for table in tables])
