"""The interval of a statistic that is no function of sums (a refitted model, such as Cohen's kappa): a seeded
bootstrap of the design's units, its SE rescaled for the bootstrap's shrink at n units, a t quantile."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from .design import Design
from .intervals import DEFAULT_LEVEL, DEFAULT_ROUNDS, DEFAULT_SEED, Bounds, Interval, check_level, t_interval
from .resampling import check_rounds_and_seed, unit_counts


def statistic_interval(
    statistic: Callable[[np.ndarray], float],
    design: Design,
    rounds: int = DEFAULT_ROUNDS,
    seed: int = DEFAULT_SEED,
    level: float = DEFAULT_LEVEL,
    bounds: Bounds = None,
) -> Interval | None:
    """The interval of any statistic of weighted units, for a figure that is no function of sums (a refitted model,
    such as Cohen's kappa): `statistic(counts)` gets how often each unit was drawn (ones for the data itself). The SE
    is the seeded bootstrap's, rescaled by sqrt(n / (n - strata)) (the bootstrap's shrink at n units), with a t
    quantile at n - strata degrees of freedom; one Python call per resample.
    """
    check_rounds_and_seed(rounds, seed)
    check_level(level)
    point = float(statistic(np.ones(design.n_units)))
    strata = len(design.slices)
    if not np.isfinite(point) or design.n_units - strata < 1:
        return None
    rng = np.random.default_rng(seed)
    draws = np.array([statistic(counts) for chunk in unit_counts(design, rounds, rng) for counts in chunk], dtype=float)
    defined = draws[np.isfinite(draws)]
    if len(defined) < 2:
        return None
    se = float(np.std(defined, ddof=1)) * math.sqrt(design.n_units / (design.n_units - strata))
    if not se > 0:
        return None
    found = t_interval(point, se, float(design.n_units - strata), design.n_units, level, bounds)
    return Interval(
        found.point,
        found.low,
        found.high,
        se,
        found.n,
        len(defined),
        len(draws) - len(defined),
        level,
        found.df,
        found.clipped,
    )


__all__ = ["statistic_interval"]
