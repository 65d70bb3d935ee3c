"""Intervals of the figures a benchmark builds from its unit table: the t interval on the design's units
(`intervals`), one-unit strata borrowing the pooled variance where the unit values are known, each interval on its
figure's scale (computed on the scale's logit).

`source` is anything with `figures(units) -> {name: Figure}` and `judge_noise_column` (the unit column that a judge
sample changes, or None), and optionally `headline_scale` ("-300..100"), `percent_figures` (figures kept as
fractions of that scale) and `figure_ranges` ({name: (low, high)}, overriding the scale): a benchmark plug-in is one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any, Protocol

import numpy as np

from .design import Design
from .figures import Figure
from .groups import spread_only
from .intervals import DEFAULT_LEVEL, DEFAULT_ROUNDS, DEFAULT_SEED, Bounds, Interval, interval_reasons, intervals
from .sparse import pooled_interval, pooled_method, sparse_strata
from .units import UnitTable

SCALE = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\s*\.\.\s*(-?\d+(?:\.\d+)?)\s*$")


def interval_method(
    design: Design, rounds: int = DEFAULT_ROUNDS, seed: int = DEFAULT_SEED, level: float = DEFAULT_LEVEL
) -> str:
    """The words `scores.json` records as `interval_method` (`rounds` and `seed`: those of the refitted statistics,
    `statistic_interval`; the t interval draws no resample)."""
    per = f" per {design.stratified_by}" if design.stratified_by else ""
    return (
        f"{level:.0%} t interval over {design.describe()}: figure ± t(df) x SE on the logit of the figure's scale "
        f"(mapped back, so it stays on the scale; the side towards its far end reaching for failures the sample does "
        f"not show, the other side paying for that and reaching no further than failures it shows need), the SE "
        f"linearized with the n/(n-1) small-sample factor{per}, df Welch-Satterthwaite's; refitted statistics: "
        f"bootstrap SE ({rounds} resamples, seed {seed}); none for a figure on one {design.unit}{per}"
    )


class FigureSource(Protocol):
    judge_noise_column: str | None

    def figures(self, units: UnitTable) -> dict[str, Figure]: ...


def figure_bounds(source: Any, names: Iterable[str]) -> dict[str, Bounds]:
    """Each figure's attainable range: `figure_ranges[name]`, else the `headline_scale` (divided by 100 for a
    percent figure kept as a fraction); None where neither says."""
    ranges = getattr(source, "figure_ranges", None) or {}
    scale = SCALE.match(str(getattr(source, "headline_scale", None) or ""))
    percent = getattr(source, "percent_figures", frozenset())
    found: dict[str, Bounds] = {}
    for name in names:
        if name in ranges:
            found[name] = tuple(ranges[name])  # type: ignore[assignment]
        elif scale:
            divisor = 100.0 if name in percent else 1.0
            found[name] = (float(scale.group(1)) / divisor, float(scale.group(2)) / divisor)
        else:
            found[name] = None
    return found


def figure_intervals_and_reasons(
    source: FigureSource, units: UnitTable, figures: dict[str, Figure]
) -> tuple[dict[str, Interval | None], str, dict[str, str]]:
    """Each figure's interval, the method's name, and why a figure has none."""
    design, column = units.design(), source.judge_noise_column
    bounds = figure_bounds(source, figures)
    method = interval_method(design, DEFAULT_ROUNDS, DEFAULT_SEED)
    if column is not None and sparse_strata(design, np.isfinite(units[column])):
        pairs = {
            name: pooled_interval(
                column_figure(source, units, column, name), units[column], design=design, bounds=bounds[name]
            )
            for name in figures
        }
        found = {name: pair[0] for name, pair in pairs.items()}
        reasons = {name: pair[1] for name, pair in pairs.items() if pair[1]}
        return found, method + pooled_method(design), reasons
    found = spread_only(intervals(figures, design, DEFAULT_ROUNDS, DEFAULT_SEED, bounds=bounds))
    reasons = {name: why for name, why in interval_reasons(figures, design).items() if why and found[name] is None}
    return found, method, reasons


def figure_intervals(source: FigureSource, units: UnitTable, figures: dict[str, Figure]) -> tuple[dict, str]:
    """Each figure's interval and the method's name; a figure resting on one unit per stratum has none."""
    found, method, _ = figure_intervals_and_reasons(source, units, figures)
    return found, method


def column_figure(source: FigureSource, units: UnitTable, column: str, name: str) -> Callable[[Any], Figure]:
    """Figure `name` as a function of the values of one unit column (the row scores)."""
    return lambda values: source.figures(replaced(units, column, values))[name]


def replaced(units: UnitTable, column: str, values) -> UnitTable:
    return UnitTable(units.ids, {**units.columns, column: values}, units.strata, units.unit, units.stratified_by)
