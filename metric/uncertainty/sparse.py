"""Intervals where a stratum holds one scored unit among larger ones: its own spread is unmeasured, so it borrows one.

The unit's part of the figure's variance is slope^2 x s^2: `slope` the figure's derivative in the unit's value (as
`judge_noise.influence` computes it), s^2 borrowed from the strata with two or more scored units (`borrowed`: the
variance at which the interval covers on average, the lone stratum taken to be like one of the others). The strata
of two or more units keep
their own part (`variance`); the t quantile takes Welch-Satterthwaite degrees of freedom, the borrowed part
counting the pooled variance's. Where every stratum holds one unit there is nothing to borrow from: no interval.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .borrowed import borrowed_variance
from .comparison import Difference, difference_figure, difference_from, failure_reaches
from .design import Design
from .figures import Figure
from .intervals import (
    DEFAULT_LEVEL,
    Bounds,
    Interval,
    contributions_interval,
    quantile,
    sided_interval,
    t_interval,
)
from .judge_noise import influence
from .unseen_failures import failed_units, far_below, near_quantile, shown_failures, unseen_reach
from .variance import Measured, Spread, linearized, no_spread_reason, rests_on, spread

METHOD = (
    "; a {stratum} with one scored {unit} among larger ones borrows a variance from the others (the one at which the "
    "interval covers on average were it like one of them, each {stratum}'s variance up to its sampling error), with "
    "Student's t"
)


def sparse_strata(design: Design, scored: np.ndarray) -> bool:
    """Whether a stratified design has a stratum with exactly one scored unit."""
    if design.stratified_by is None:
        return False
    counts = np.bincount(design.strata[np.asarray(scored, dtype=bool)], minlength=len(design.stratum_names))
    return bool((counts == 1).any())


def borrowed_spread(
    figure: Figure, slopes: np.ndarray, values: np.ndarray, design: Design, level: float = DEFAULT_LEVEL
) -> Measured | None:
    """`figure`'s contributions and spread with each one-unit stratum's part borrowed; `values` the per-unit values
    whose within-stratum variances are borrowed from (NaN: unscored), `slopes` the figure's derivative in each."""
    z = linearized(figure)
    if z is None:
        return None
    rests = rests_on(figure)
    counts = np.bincount(design.strata[rests], minlength=len(design.stratum_names))
    alone = rests & (counts[design.strata] == 1)
    slopes_squared = float((slopes[alone] ** 2).sum())
    per_unit, df = borrowed_variance(values, design, slopes_squared, spread(z, rests, design).variance, level)
    found = spread(z, rests, design, (per_unit * slopes_squared, df))
    if alone.any() and found.strata != found.singletons:
        found = Spread(found.variance, found.df, found.n, found.strata, 0, found.borrowed)  # none left unmeasured
    return Measured(z, rests, found)


def pooled_interval(
    build: Callable[[np.ndarray], Figure],
    values: np.ndarray,
    level: float = DEFAULT_LEVEL,
    design: Design | None = None,
    bounds: Bounds = None,
) -> tuple[Interval | None, str | None]:
    """The figure `build(values)` with its interval (Student's t where a one-unit stratum borrows the pooled
    variance); with the reason where it has none. `design` the units' strata (None: one stratum)."""
    values = np.asarray(values, dtype=float)
    design = design or Design.simple(len(values))
    figure = build(values)
    point, slopes = figure.point(), influence(build, values)
    found = None if point is None or slopes is None else borrowed_spread(figure, slopes, values, design, level)
    if found is None:
        return None, "the figure is undefined on these units"
    reason = no_spread_reason(found.spread, design)
    if reason is not None or point is None:
        return None, reason
    failed, rest = shown_failures(found, figure, point, bounds, design)
    return borrowed_interval(point, found.spread, level, bounds, failed, rest), None


def borrowed_interval(
    point: float, found: Spread, level: float, bounds: Bounds, failed: int | None = None, rest: float = 0.0
) -> Interval:
    """The t interval on a spread with a borrowed part, cut to `bounds`: the borrowed variance is the one at which
    this symmetric interval covers on average (`borrowed`), so it takes no transformation of the scale (on the
    scale's logit it covered 97-98% where the others held 5 prompts per task, bench/interval_coverage.py). Where
    `failed` (the failures the units show) is given, the far side reaches as far as failures they do not show could
    have moved the figure (`intervals.unseen_reach`) and the near side takes what that leaves of the level
    (`near_quantile`), as a figure without a borrowed part does; unlike one, it is not drawn in where failures show
    (`shown_reach` needs the spread of the units that did not fail, partly borrowed here). `rest`: that spread, for a
    figure without a borrowed part."""
    if found.borrowed > 0:
        if failed is None or bounds is None:
            return t_interval(point, found.se, found.df, found.n, level, bounds)
        distance = max(point - bounds[0], bounds[1] - point)
        reach = unseen_reach([(distance, failed)], found.n, found.se, level)
        q, near = quantile(level, found.df), near_quantile(reach / found.se, found.df, level)
        sides = ((reach, 0.0), (q, near)) if far_below(point, bounds) else ((0.0, reach), (near, q))
        return sided_interval(point, found.se, found.df, found.n, level, bounds, *sides[0], sides[1])
    return contributions_interval(point, found, level, bounds, failed, rest)


def pooled_method(design: Design) -> str:
    return METHOD.format(unit=design.unit, stratum=design.stratified_by or "stratum")


def pooled_difference(
    build_a: Callable[[np.ndarray], Figure],
    build_b: Callable[[np.ndarray], Figure],
    values_a: np.ndarray,
    values_b: np.ndarray,
    design: Design,
    level: float = DEFAULT_LEVEL,
    bounds: Bounds = None,
    scale: Bounds = None,
) -> tuple[Difference | None, str | None]:
    """a - b on the same units (`values_*` each run's per-unit values, scored on the same units), one-unit strata
    borrowing the pooled within-stratum variance of the per-unit differences; with the reason where it has none.
    `scale`: the figures' own scale, where known: each side reaches as far as an unseen failure of the run whose
    failure moves the difference that way could move it (`comparison.failure_reaches`), as a paired difference
    without a borrowed part does."""
    values_a, values_b = np.asarray(values_a, dtype=float), np.asarray(values_b, dtype=float)
    a, b = build_a(values_a), build_b(values_b)
    figure, slopes = difference_figure(a, b), influence(build_a, values_a)
    point = figure.point()
    found = (
        None if point is None or slopes is None else borrowed_spread(figure, slopes, values_a - values_b, design, level)
    )
    if found is None:
        return None, "the difference is undefined on these units"
    reason = no_spread_reason(found.spread, design)
    if reason is not None or point is None:
        return None, reason
    both = np.any(a.columns != 0, axis=1) & np.any(b.columns != 0, axis=1)
    if scale is None:
        return difference_from(borrowed_interval(point, found.spread, level, bounds), int(both.sum())), None
    points = float(a.point()), float(b.point())  # type: ignore[arg-type]
    failed = failed_units(a, points[0], scale, found.rests), failed_units(b, points[1], scale, found.rests)
    got = found.spread
    below, above = failure_reaches(points, scale, got.n, got.se, failed, level)
    if bounds is None:
        bounds = (scale[0] - scale[1], scale[1] - scale[0])
    found_interval = sided_interval(point, got.se, got.df, got.n, level, bounds, below, above)
    return difference_from(found_interval, int(both.sum()), below if point > 0 else above), None
