"""Intervals of the figures a benchmark builds from its unit table: the seeded bootstrap, or where a stratum has a
single scored unit (the demo's one prompt per task) the pooled normal interval.

`source` is anything with `figures(units) -> {name: Figure}` and `judge_noise_column` (the unit column that a judge
sample changes, or None): a benchmark plug-in is one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

import numpy as np

from .figures import Figure
from .groups import spread_only
from .intervals import DEFAULT_ROUNDS, DEFAULT_SEED, interval_method, intervals
from .sparse import pooled_interval, pooled_method, sparse_strata
from .units import UnitTable


class FigureSource(Protocol):
    judge_noise_column: str | None

    def figures(self, units: UnitTable) -> dict[str, Figure]: ...


def figure_intervals(source: FigureSource, units: UnitTable, figures: dict[str, Figure]) -> tuple[dict, str]:
    """Each figure's interval and the method's name; a figure resting on one unit has none (it shows no spread)."""
    design, column = units.design(), source.judge_noise_column
    if column is not None and sparse_strata(design, np.isfinite(units[column])):
        found = {name: pooled_interval(column_figure(source, units, column, name), units[column]) for name in figures}
        return found, pooled_method(design)
    return spread_only(intervals(figures, design, DEFAULT_ROUNDS, DEFAULT_SEED)), interval_method(
        design, DEFAULT_ROUNDS, DEFAULT_SEED
    )


def column_figure(source: FigureSource, units: UnitTable, column: str, name: str) -> Callable[[Any], Figure]:
    """Figure `name` as a function of the values of one unit column (the row scores)."""
    return lambda values: source.figures(replaced(units, column, values))[name]


def replaced(units: UnitTable, column: str, values) -> UnitTable:
    return UnitTable(units.ids, {**units.columns, column: values}, units.strata, units.unit, units.stratified_by)
