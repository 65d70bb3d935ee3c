"""Intervals on figures: Student's t on the design-based SE, computed on the logit of the figure's scale where the
scale is known, figure ± t(df) x SE where it is not.

See `variance`: the SE is the linearized (delta-method) one with the n/(n-1) small-sample factor per stratum (what a
rescaled bootstrap of the design's units converges to), df Welch-Satterthwaite's over the strata. A figure on a bounded
scale [L, U] (HelloBench -300..100, a win rate 0..1) takes the t interval on logit((figure - L) / (U - L)), its SE
carried by the delta method, mapped back: the interval stays on the scale and reaches further towards the far bound,
where a score near the top of the scale has its rare low values. Failures at that far end shape both sides
(`unseen_failures`): the far side reaches as far as failures the sample does not show could have moved the figure
(`unseen_reach`, learnt from the failures it does show, up to UNSEEN_RATE) and the near side pays for that reach
(`near_quantile`); where the sample shows failures the near side reaches no further than a sample showing more of them
than their rate needs (`shown_reach`). A paired difference takes the reach on each side for the run whose failure
would move it that way (`comparison.failure_reaches`). Chosen by measured coverage (bench/interval_coverage.py,
released and synthetic populations at 5, 10 and 30 prompts per task): bootstrap-t was wider for about the same
coverage on single figures and covered paired differences less than t on the same SE; a fixed allowance (failures on
0.25% of each stratum's units) covered a model near the top with zeros on 1% of prompts 88-94%. A figure resting on one
unit per stratum gets no interval (`interval_reasons` says why), never a zero width; one whose every unit sits at one
end of its known scale (a win rate of n of n) gets Wilson's one-sided bound over its units (`wilson.edge_bounds`).
Every interval holds its figure, checked where it is made (`check_order`), and the figure is cut to the scale with it.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass, replace

import numpy as np
from scipy.special import expit, logit  # without overflow at either end

from .design import Design
from .figures import Bounds, Figure
from .quantiles import quantile
from .resampling import check_rounds_and_seed
from .unseen_failures import far_below, near_quantile, shown_failures, shown_reach, unseen_reach
from .variance import Measured, Spread, linearized, no_spread_reason, only_float_noise, rests_on, spread
from .wilson import edge_bounds

DEFAULT_ROUNDS = 2000
DEFAULT_SEED = 0
DEFAULT_LEVEL = 0.95


def check_level(level: object) -> None:
    real = isinstance(level, numbers.Real) and not isinstance(level, (bool, np.bool_))
    if not real or not 0 < level < 1:
        raise ValueError(f"level must be a number in (0, 1), got {level!r}")


@dataclass(frozen=True)
class Interval:
    """A figure's interval: `point` the figure, `low`..`high` at `level`, `se` its standard error, `n` the units it
    rests on, `df` the t quantile's degrees of freedom, `clipped` whether a bound was cut to the figure's scale;
    `rounds` the resamples used (0: none drawn) and `dropped` those where it was undefined."""

    point: float
    low: float
    high: float
    se: float
    n: int
    rounds: int
    dropped: int = 0
    level: float = DEFAULT_LEVEL
    df: float | None = None
    clipped: bool = False

    def __post_init__(self) -> None:
        check_order(self.point, self.low, self.high)

    def to_dict(self) -> dict[str, float | int | bool]:
        """The `scores.json` entry: {"low", "high", "se", "n"}, and "clipped": true where a bound was cut."""
        found: dict[str, float | int | bool] = {"low": self.low, "high": self.high, "se": self.se, "n": self.n}
        return found | ({"clipped": True} if self.clipped else {})

    @property
    def width(self) -> float:
        return self.high - self.low

    def contains(self, value: float) -> bool:
        return self.low <= value <= self.high


def check_order(point: float, low: float, high: float) -> None:
    """Raise a ValueError unless low <= point <= high: every interval of the package is made through this check (an
    `Interval`, a `Difference`, a calibrated `Estimate`, the ratings' bounds)."""
    if not low <= point <= high:
        raise ValueError(f"an interval [{low!r}, {high!r}] that does not hold its figure {point!r}")


def clip(point: float, low: float, high: float, bounds: Bounds) -> tuple[float, float, float, bool]:
    """The figure and its bounds cut together to `bounds` (the figure's scale), and whether any was cut."""
    if bounds is None:
        return point, low, high, False
    lowest, highest = bounds
    clipped = low < lowest or high > highest
    return min(max(point, lowest), highest), min(max(low, lowest), highest), max(min(high, highest), lowest), clipped


def t_interval(
    point: float, se: float, df: float | None, n: int, level: float = DEFAULT_LEVEL, bounds: Bounds = None
) -> Interval:
    """point ± t(df) x se, clipped to `bounds`."""
    return sided_interval(point, se, df, n, level, bounds, 0.0, 0.0)


def sided_interval(
    point: float,
    se: float,
    df: float | None,
    n: int,
    level: float,
    bounds: Bounds,
    below: float,
    above: float,
    quantiles: tuple[float, float] | None = None,
) -> Interval:
    """min(point - q_low x se, point - below) .. max(point + q_high x se, point + above), clipped to `bounds`: the t
    interval reaching at least `below` and `above` from the figure (`unseen_reach`; `Interval.se` stays the measured
    one); `quantiles` (q_low, q_high), each side's t quantile, t(df) at `level` on both where None."""
    q_low, q_high = quantiles or (quantile(level, df),) * 2
    low, high = min(point - q_low * se, point - below), max(point + q_high * se, point + above)
    point, low, high, clipped = clip(point, low, high, bounds)
    return Interval(point, low, high, se, n, rounds=0, level=level, df=df, clipped=clipped)


def scale_interval(
    point: float,
    se: float,
    df: float | None,
    n: int,
    level: float = DEFAULT_LEVEL,
    bounds: Bounds = None,
    reach: float = 0.0,
) -> Interval:
    """The t interval on the logit of the figure's scale `bounds` (the SE by the delta method), mapped back; the
    plain t interval where the scale is not known or the figure sits on one of its bounds. On the side of the bound
    farther from the figure it reaches at least `reach` from the figure (`unseen_reach`), within the scale, and where
    that passes the logit's own side the other side takes what it leaves of the level (`near_quantile`)."""
    if bounds is None or not bounds[0] < point < bounds[1] or not se > 0:
        return reaching(t_interval(point, se, df, n, level, bounds), reach, bounds)
    lowest, width = bounds[0], bounds[1] - bounds[0]
    share = (point - lowest) / width
    slope, q, below = 1 / (share * (1 - share) * width), quantile(level, df), far_below(point, bounds)
    centre, end = float(logit(share)), (point - reach if below else point + reach)
    far = abs(logit((end - lowest) / width) - centre) / (se * slope) if bounds[0] < end < bounds[1] else math.inf
    near = near_quantile(far, df, level)
    q_low, q_high = (q, near) if below else (near, q)
    low = lowest + width * float(expit(centre - q_low * se * slope))
    high = lowest + width * float(expit(centre + q_high * se * slope))
    found = Interval(point, min(low, point), max(high, point), se, n, rounds=0, level=level, df=df)  # float rounding
    return reaching(found, reach, bounds)


def reaching(found: Interval, reach: float, bounds: Bounds) -> Interval:
    """`found` with the side towards the end of `bounds` farther from its figure reaching at least `reach` from the
    figure, within the scale (unchanged where the scale is not known or `reach` is 0)."""
    if bounds is None or not reach > 0:
        return found
    if far_below(found.point, bounds):
        low = found.point - reach
        cut = found.clipped or low < bounds[0]
        return replace(found, low=max(min(found.low, low), min(bounds[0], found.low)), clipped=cut)
    high = found.point + reach
    cut = found.clipped or high > bounds[1]
    return replace(found, high=min(max(found.high, high), max(bounds[1], found.high)), clipped=cut)


def contributions_interval(
    point: float,
    found: Spread,
    level: float = DEFAULT_LEVEL,
    bounds: Bounds = None,
    failed: int | None = None,
    rest: float = 0.0,
) -> Interval:
    """The interval of a figure with spread `found`: on its scale's logit where `bounds` are known, reaching on the
    far side as far as the failures its sample does not show could have moved it where `failed` (the failures it
    shows, `failed_units`) is given (`unseen_reach`), the near side taking what that leaves of the level; where the
    sample shows failures the near side reaches no further than a sample showing more of them than their rate needs
    (`shown_reach`, on `rest`: the SE of the units that did not fail, `shown_failures`)."""
    if failed is None or bounds is None:
        return scale_interval(point, found.se, found.df, found.n, level, bounds)
    distance = max(point - bounds[0], bounds[1] - point)
    reach = unseen_reach([(distance, failed)], found.n, found.se, level)
    found_interval = scale_interval(point, found.se, found.df, found.n, level, bounds, reach)
    return drawn_in(found_interval, shown_reach(failed, found.n, distance, rest, level), bounds)


def drawn_in(found: Interval, reach: float | None, bounds: Bounds) -> Interval:
    """`found` with the side towards the end of `bounds` nearer its figure reaching no further than `reach` from the
    figure (unchanged where `reach` is None)."""
    if bounds is None or reach is None:
        return found
    if far_below(found.point, bounds):
        return replace(found, high=max(found.point, min(found.high, found.point + reach)))
    return replace(found, low=min(found.point, max(found.low, found.point - reach)))


def normal_interval(point: float, se: float, n: int, level: float = DEFAULT_LEVEL, bounds: Bounds = None) -> Interval:
    """point ± z * se: the interval of a figure whose SE comes from elsewhere (a model's own standard error)."""
    return t_interval(point, se, None, n, level, bounds)


def measured(figure: Figure, design: Design) -> tuple[Measured | None, str | None]:
    """The figure's contributions and spread and, where it gets no interval, why."""
    design.check_units(figure.n_units, "figure")
    if figure.point() is None:
        return None, "the figure is undefined on these units"
    z = linearized(figure)
    if z is None:
        return None, "the figure's derivative is undefined on these units"
    rests = rests_on(figure)
    found = spread(z, rests, design)
    if found.variance > 0 and only_float_noise(figure, z, rests, design):
        found = replace(found, variance=0.0)
    return Measured(z, rests, found), no_spread_reason(found, design)


def figure_spread(figure: Figure, design: Design) -> tuple[Spread | None, str | None]:
    """The figure's spread and, where it gets no interval, why."""
    found, reason = measured(figure, design)
    return (None if found is None else found.spread), reason


def figure_interval(figure: Figure, design: Design, level: float, bounds: Bounds) -> Interval | None:
    """The figure's interval (None: it gets none, `figure_spread` says why), reaching on the far side as far as
    failures its sample does not show could have moved it (`unseen_reach`: a single figure, whose rare failures sit at
    one end of its scale; a paired difference takes its own, `comparison.failure_reaches`)."""
    found, reason = measured(figure, design)
    point = figure.point()
    if found is None or point is None:
        return None
    if reason is not None:
        return edge_interval(point, found.spread, level, bounds)
    failed, rest = shown_failures(found, figure, point, bounds, design)
    return contributions_interval(point, found.spread, level, bounds, failed, rest)


def edge_interval(point: float, found: Spread, level: float, bounds: Bounds) -> Interval | None:
    """A figure whose units show no spread because every one sits at the same end of its scale (a win rate of n of n
    or 0 of n): Wilson's one-sided bound over its units (`wilson.edge_bounds`); None elsewhere (no spread is no
    evidence of none)."""
    if bounds is None or found.variance > 0 or found.singletons or found.n < 2:
        return None
    edges = edge_bounds(point, bounds, found.n, level)
    if edges is None:
        return None
    point = min(max(point, bounds[0]), bounds[1])
    return Interval(point, edges[0], edges[1], 0.0, found.n, rounds=0, level=level)


def interval_reasons(
    figures: Mapping[str, Figure], design: Design, bounds: Mapping[str, Bounds] | None = None
) -> dict[str, str | None]:
    """Why each figure has no interval (None: it has one; `bounds` as `intervals` takes them, for the figures at an
    end of their scale, which have Wilson's one-sided bound)."""
    found = intervals(figures, design, bounds=bounds) if bounds else {}
    return {name: None if found.get(name) else figure_spread(figure, design)[1] for name, figure in figures.items()}


def intervals(
    figures: Mapping[str, Figure],
    design: Design,
    rounds: int = DEFAULT_ROUNDS,
    seed: int = DEFAULT_SEED,
    level: float = DEFAULT_LEVEL,
    bounds: Mapping[str, Bounds] | None = None,
) -> dict[str, Interval | None]:
    """Every figure's interval (None: undefined, or resting on one unit per stratum: `interval_reasons` says why).
    `bounds` gives a figure's attainable range: its interval is computed on that scale's logit (`scale_interval`).
    `rounds` and `seed` are checked for the callers' refitted statistics; the t interval draws no resample."""
    check_rounds_and_seed(rounds, seed)
    check_level(level)
    result: dict[str, Interval | None] = {}
    for name, figure in figures.items():
        design.check_units(figure.n_units, f"figure {name!r}")
        result[name] = figure_interval(figure, design, level, (bounds or {}).get(name))
    return result


def interval(
    figure: Figure,
    design: Design,
    rounds: int = DEFAULT_ROUNDS,
    seed: int = DEFAULT_SEED,
    level: float = DEFAULT_LEVEL,
    bounds: Bounds = None,
) -> Interval | None:
    """One figure's interval (see `intervals`)."""
    return intervals({"figure": figure}, design, rounds, seed, level, {"figure": bounds})["figure"]
