"""Intervals on figures: the studentized bootstrap's, figure - q x SE, the SE design-based (linearized, with the
small-sample factor per stratum) and q the quantiles of the bootstrap t.

See `variance`: the SE is what a rescaled bootstrap of the design's units converges to; `studentized`: the
quantiles of (figure* - figure) / SE* over seeded resamples, which follow skewed unit values where a symmetric t
interval cannot. Where the bootstrap t cannot be read (fewer than 20 units, a rare value that most resamples miss,
a borrowed variance part) the quantile is Student's t with Welch-Satterthwaite degrees of freedom. The bounds are
clipped to the figure's attainable range where it is known. A figure resting on one unit per stratum gets no
interval (`interval_reasons` says why), never a zero width.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
from scipy.special import ndtri, stdtrit  # scipy.stats' norm.ppf and t.ppf, without importing scipy.stats

from .design import Design
from .figures import Figure
from .resampling import check_rounds_and_seed, unit_counts
from .studentized import MIN_UNITS, StudentizedDraws, studentized
from .variance import Measured, Spread, linearized, no_spread_reason, rests_on, spread

DEFAULT_ROUNDS = 2000
DEFAULT_SEED = 0
DEFAULT_LEVEL = 0.95
Bounds = tuple[float, float] | None  # the attainable range of a figure (None: not known)


def check_level(level: object) -> None:
    real = isinstance(level, numbers.Real) and not isinstance(level, (bool, np.bool_))
    if not real or not 0 < level < 1:
        raise ValueError(f"level must be a number in (0, 1), got {level!r}")


def interval_method(
    design: Design, rounds: int = DEFAULT_ROUNDS, seed: int = DEFAULT_SEED, level: float = DEFAULT_LEVEL
) -> str:
    """The words `scores.json` records as `interval_method`."""
    per = f" per {design.stratified_by}" if design.stratified_by else ""
    return (
        f"{level:.0%} studentized bootstrap interval over {design.describe()} (bootstrap-t, {rounds} resamples, seed "
        f"{seed}): figure - q x SE, the SE linearized with the n/(n-1) small-sample factor{per} (the rescaling "
        f"bootstrap's SE), q the quantiles of (figure* - figure) / SE*; Student's t at Welch-Satterthwaite df on "
        f"fewer than {MIN_UNITS} {design.unit}s, where most resamples miss a rare value, or where a variance is "
        f"borrowed; bounds clipped to the figure's scale; none for a figure on one {design.unit}{per}"
    )


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

    def to_dict(self) -> dict[str, float | int | bool]:
        """The `scores.json` entry: {"low", "high", "se", "n"}, and "clipped": true where a bound was cut."""
        found: dict[str, float | int | bool] = {"low": self.low, "high": self.high, "se": self.se, "n": self.n}
        return found | ({"clipped": True} if self.clipped else {})

    @property
    def width(self) -> float:
        return self.high - self.low

    def contains(self, value: float) -> bool:
        return self.low <= value <= self.high


def quantile(level: float, df: float | None) -> float:
    """The two-sided quantile: Student's t at `df` degrees of freedom (normal where df is None)."""
    tail = (1 + level) / 2
    return float(ndtri(tail) if df is None or not math.isfinite(df) else stdtrit(max(df, 1.0), tail))


def clip(low: float, high: float, bounds: Bounds) -> tuple[float, float, bool]:
    if bounds is None:
        return low, high, False
    lowest, highest = bounds
    clipped = low < lowest or high > highest
    return max(low, lowest), min(high, highest), clipped


def t_interval(
    point: float, se: float, df: float | None, n: int, level: float = DEFAULT_LEVEL, bounds: Bounds = None
) -> Interval:
    """point ± t(df) x se, clipped to `bounds`."""
    half = quantile(level, df) * se
    low, high, clipped = clip(point - half, point + half, bounds)
    return Interval(point, low, high, se, n, rounds=0, level=level, df=df, clipped=clipped)


def studentized_interval(
    point: float,
    found: Spread,
    draws: StudentizedDraws | None,
    level: float = DEFAULT_LEVEL,
    bounds: Bounds = None,
    rounds: int = 0,
) -> Interval:
    """(point - q_high x SE, point - q_low x SE), q the studentized bootstrap's quantiles; point ± t(df) x SE where
    there are no draws."""
    if draws is None:
        return t_interval(point, found.se, found.df, found.n, level, bounds)
    below, above = draws.quantiles(level)
    low, high, clipped = clip(point - above * found.se, point - below * found.se, bounds)
    return Interval(point, low, high, found.se, found.n, rounds, draws.dropped, level, found.df, clipped)


def contributions_interval(
    point: float,
    found: Spread,
    z: np.ndarray,
    rests: np.ndarray,
    design: Design,
    level: float = DEFAULT_LEVEL,
    bounds: Bounds = None,
    rounds: int = DEFAULT_ROUNDS,
    seed: int = DEFAULT_SEED,
) -> tuple[Interval, StudentizedDraws | None]:
    """The interval of a figure with linearized contributions `z` over the units in `rests` (its spread `found`),
    and the studentized draws it rests on. A borrowed variance part (a stratum of one unit) is no resample's to
    draw, so such a figure takes the t interval (its quantile counts the borrowed part's degrees of freedom)."""
    draws = None if found.borrowed > 0 else studentized(z, rests, design, rounds, seed)
    draws = draws if draws is not None and draws.usable(level) else None
    return studentized_interval(point, found, draws, level, bounds, rounds), draws


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
    return Measured(z, rests, found), no_spread_reason(found, design)


def figure_spread(figure: Figure, design: Design) -> tuple[Spread | None, str | None]:
    """The figure's spread and, where it gets no interval, why."""
    found, reason = measured(figure, design)
    return (None if found is None else found.spread), reason


def figure_interval(
    figure: Figure, design: Design, level: float, bounds: Bounds, rounds: int, seed: int
) -> tuple[Interval | None, StudentizedDraws | None]:
    """The figure's interval and its studentized draws (None: it gets none, `figure_spread` says why)."""
    found, reason = measured(figure, design)
    point = figure.point()
    if found is None or reason is not None or point is None:
        return None, None
    return contributions_interval(point, found.spread, found.z, found.rests, design, level, bounds, rounds, seed)


def interval_reasons(figures: Mapping[str, Figure], design: Design) -> dict[str, str | None]:
    """Why each figure has no interval (None: it has one)."""
    return {name: figure_spread(figure, design)[1] for name, figure in figures.items()}


def intervals(
    figures: Mapping[str, Figure],
    design: Design,
    rounds: int = DEFAULT_ROUNDS,
    seed: int = DEFAULT_SEED,
    level: float = DEFAULT_LEVEL,
    bounds: Mapping[str, Bounds] | None = None,
) -> dict[str, Interval | None]:
    """Every figure's interval (None: undefined, or resting on one unit per stratum: `interval_reasons` says why).
    `bounds` gives a figure's attainable range, to which its bounds are clipped."""
    check_rounds_and_seed(rounds, seed)
    check_level(level)
    result: dict[str, Interval | None] = {}
    for name, figure in figures.items():
        design.check_units(figure.n_units, f"figure {name!r}")
        result[name] = figure_interval(figure, design, level, (bounds or {}).get(name), rounds, seed)[0]
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
