"""Intervals where a stratum holds one scored unit: a bootstrap within it never varies, so it would print a zero width.

The fallback linearises the figure (its derivative in each unit's value, as `judge_noise.influence` computes it) and
gives every unit the variance of all scored values around their common mean. Pooling across strata counts the
differences between strata as noise too, so the interval is conservative (wider than a stratified one would be).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from .design import Design
from .figures import Figure
from .intervals import DEFAULT_LEVEL, Interval, normal_interval
from .judge_noise import influence

METHOD = (
    "normal approximation with the variance of all scored {unit}s pooled (a {stratum} has a single scored {unit}, "
    "within which a bootstrap sees no variance; conservative)"
)


def sparse_strata(design: Design, scored: np.ndarray) -> bool:
    """Whether a stratified design has a stratum with exactly one scored unit."""
    if design.stratified_by is None:
        return False
    counts = np.bincount(design.strata[np.asarray(scored, dtype=bool)], minlength=len(design.stratum_names))
    return bool((counts == 1).any())


def pooled_interval(
    build: Callable[[np.ndarray], Figure], values: np.ndarray, level: float = DEFAULT_LEVEL
) -> Interval | None:
    """The figure `build(values)` with a normal interval from the pooled variance of the scored `values` (NaN:
    unscored); None with fewer than two scored values or where the figure is undefined."""
    values = np.asarray(values, dtype=float)
    scored = np.isfinite(values)
    point = build(values).point()
    slopes = influence(build, values)
    if scored.sum() < 2 or point is None or slopes is None:
        return None
    se = float(np.std(values[scored], ddof=1) * math.sqrt(float((slopes[scored] ** 2).sum())))
    return normal_interval(point, se, int(scored.sum()), level)


def pooled_method(design: Design) -> str:
    return METHOD.format(unit=design.unit, stratum=design.stratified_by or "stratum")
