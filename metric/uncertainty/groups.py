"""Intervals of the figures of one group of units (a bucket, an area, a judge's verdicts), resampled on their own.

A group's figure (its win rate, its S_l) rests on the group's units only, so its interval resamples those: the
figures are built on the group's units and `group_intervals` gives them the project's interval (`intervals`).
A figure resting on fewer than two units has no interval (None): one unit shows no spread, and a zero width
would claim a precision the data does not have.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from .design import Design
from .figures import Figure
from .intervals import DEFAULT_LEVEL, DEFAULT_ROUNDS, DEFAULT_SEED, Bounds, Interval, intervals
from .statistic_interval import statistic_interval


def spread_only(found: Mapping[str, Interval | None]) -> dict[str, Interval | None]:
    """The intervals, None where a figure rests on fewer than two units."""
    return {name: None if value is None or value.n < 2 else value for name, value in found.items()}


def group_intervals(
    figures: Mapping[str, Figure], unit: str = "prompt", bounds: Mapping[str, Bounds] | None = None
) -> dict[str, Interval | None]:
    """Each figure's interval from resamples of the group's units (every figure built on the same units), cut to
    `bounds` (a figure's scale) where given."""
    sizes = {figure.n_units for figure in figures.values()}
    if len(sizes) != 1:
        raise ValueError(f"group figures rest on different numbers of units {sorted(sizes)}")
    design = Design.simple(sizes.pop(), unit=unit)
    return spread_only(intervals(figures, design, DEFAULT_ROUNDS, DEFAULT_SEED, bounds=bounds))


def group_statistic_interval(statistic: Callable[[np.ndarray], float], n_units: int, unit: str) -> Interval | None:
    """`statistic_interval` over the group's `n_units` units; None with fewer than two units."""
    if n_units < 2:
        return None
    return statistic_interval(statistic, Design.simple(n_units, unit=unit), DEFAULT_ROUNDS, DEFAULT_SEED)


def as_dicts(found: Mapping[str, Interval | None]) -> dict[str, dict[str, float | int] | None]:
    """The scores.json form: {name: {"low", "high", "se", "n"} or None}."""
    return {name: None if value is None else value.to_dict() for name, value in found.items()}


def group_method(unit: str, group: str) -> str:
    """The words a results file records beside its groups' intervals."""
    return (
        f"{DEFAULT_LEVEL:.0%} t interval over each {group}'s {unit}s (linearized SE with the n/(n-1) small-sample "
        "factor, Welch-Satterthwaite df, on the logit of the figure's scale so it stays on it; statistics that are "
        f"refitted: bootstrap SE over {DEFAULT_ROUNDS} resamples, seed {DEFAULT_SEED}, rescaled likewise, with a t "
        f"quantile); none for a {group} with a single {unit} or no variation"
    )
