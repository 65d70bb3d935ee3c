"""Differences between runs (paired on shared units, or independent) and rank ranges of several runs.

Paired: the difference a - b is one figure on the shared units (each unit's contribution the two runs' difference), so
what the prompts share cancels; its interval is the t interval on its SE (Welch-Satterthwaite df), each side reaching,
where the figures' scale is known, as far as failures the units do not show of the run whose failure moves the
difference that way could have moved it (`failure_reaches`, the single figure's rule up to PAIRED_RATE), cut to the
difference's range; its p-value the same t test's, and a difference resting on one unit per stratum gets none
(`difference_reason`). The t interval was chosen over the studentized bootstrap by measured coverage: on close pairs at
5-30 prompts per task the bootstrap-t covered less and was wider (bench/interval_coverage.py). A difference whose
interval holds 0 is not `distinguishable`: print it as a tie, never as a ranking. Rank ranges follow from the paired
differences: a run's best rank is 1 + the runs distinguishably above it, its worst the number of runs less those
distinguishably below it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from .design import Design
from .figures import Figure, compose
from .intervals import (
    DEFAULT_LEVEL,
    DEFAULT_ROUNDS,
    DEFAULT_SEED,
    Bounds,
    Interval,
    check_level,
    check_order,
    figure_spread,
    measured,
    quantile,
    sided_interval,
    t_interval,
)
from .power import DEFAULT_POWER, minimum_detectable_difference
from .quantiles import t_cdf
from .resampling import check_rounds_and_seed
from .unseen_failures import PAIRED_RATE, failed_units, far_below, unseen_reach


@dataclass(frozen=True)
class Difference:
    """Figure a minus figure b: the point, its interval at `level`, its SE, t degrees of freedom and two-sided p-value.

    `n_paired` counts the units both figures rest on (None for independent runs); `rounds` the resamples used
    and `dropped` those on which either figure was undefined.
    """

    difference: float
    low: float
    high: float
    se: float
    p_value: float
    n_paired: int | None
    rounds: int
    dropped: int = 0
    level: float = DEFAULT_LEVEL
    df: float | None = None
    clipped: bool = False

    def __post_init__(self) -> None:
        check_order(self.difference, self.low, self.high)

    @property
    def distinguishable(self) -> bool:
        """The interval excludes 0."""
        return self.low > 0 or self.high < 0

    @property
    def minimum_detectable(self) -> float:
        """The smallest true difference these units detect with 80% power at the interval's level."""
        return minimum_detectable_difference(self.se, 1 - self.level, DEFAULT_POWER, self.df)

    def to_dict(self) -> dict[str, float | int | bool | None]:
        """The `comparisons.json` figures (the caller adds "a", "b" and "figure")."""
        return {
            "n_paired": self.n_paired,
            "difference": self.difference,
            "low": self.low,
            "high": self.high,
            "se": self.se,
            "p_value": self.p_value,
            "distinguishable": self.distinguishable,
            "minimum_detectable": self.minimum_detectable,
            "df": self.df,
        } | ({"clipped": True} if self.clipped else {})


def t_p_value(difference: float, se: float, df: float | None) -> float:
    """Two-sided p-value of the t statistic difference / se (the normal's where df is None, as `quantile` takes it)."""
    return min(1.0, 2 * t_cdf(-(abs(difference) / se), df))


def difference_from(found: Interval, n_paired: int | None, reach: float = 0.0) -> Difference:
    """The difference with its interval and the p-value of the same t test (p < 1 - level where the interval
    excludes 0): `reach` the one `found` took on the side facing 0 (`failure_reaches`), whose SE is then at least
    reach / t(df)."""
    se = max(found.se, reach / quantile(found.level, found.df))
    p_value = t_p_value(found.point, se, found.df)
    return Difference(
        found.point,
        found.low,
        found.high,
        found.se,
        p_value,
        n_paired,
        found.rounds,
        found.dropped,
        found.level,
        found.df,
        found.clipped,
    )


def difference_figure(a: Figure, b: Figure) -> Figure:
    return compose(lambda x, y: x - y, a, b)


def difference_reason(a: Figure, b: Figure, design: Design) -> str | None:
    """Why a - b gets no interval (None: it gets one)."""
    return figure_spread(difference_figure(a, b), design)[1]


def paired_difference(
    a: Figure,
    b: Figure,
    design: Design,
    rounds: int = DEFAULT_ROUNDS,
    seed: int = DEFAULT_SEED,
    level: float = DEFAULT_LEVEL,
    bounds: Bounds = None,
    scale: Bounds = None,
) -> Difference | None:
    """a - b for two runs' figures on the same units (the shared prompts; pass `scored` = both scored when
    building them). None where either figure is undefined or the difference rests on one unit per stratum
    (`difference_reason` says why). `scale`: the figures' own scale, where known: each side of the interval then
    reaches as far as an unseen failure of the run whose failure would move the difference that way could move it
    (`failure_reaches`), and the difference's range is that scale less its extent unless `bounds` gives it."""
    check_rounds_and_seed(rounds, seed)
    check_level(level)
    points = a.point(), b.point()
    if None in points:
        return None
    found, reason = measured(difference_figure(a, b), design)
    if found is None or reason is not None:
        return None
    point, spread = points[0] - points[1], found.spread
    failed = failed_units(a, points[0], scale, found.rests), failed_units(b, points[1], scale, found.rests)
    below, above = failure_reaches(points, scale, spread.n, spread.se, failed, level)
    if bounds is None and scale is not None:
        bounds = (scale[0] - scale[1], scale[1] - scale[0])
    interval = sided_interval(point, spread.se, spread.df, spread.n, level, bounds, below, above)
    both = np.any(a.columns != 0, axis=1) & np.any(b.columns != 0, axis=1)
    return difference_from(interval, int(both.sum()), below if point > 0 else above)


def failure_reaches(
    points: tuple[float, float],
    scale: Bounds,
    n: int,
    se: float,
    failed: tuple[int, int] = (0, 0),
    level: float = DEFAULT_LEVEL,
) -> tuple[float, float]:
    """(below, above): how far a - b on `n` paired units with SE `se` must reach on each side for failures neither
    run's units show (`unseen_reach`; `failed` the failures each run's units do show, `failed_units`). A run's
    failures lie at the end of the scale farther from its figure: a's lower a - b when a sits in the upper half, b's
    raise it. Zero where the scale is not known."""
    if scale is None:
        return 0.0, 0.0
    runs: dict[bool, list[tuple[float, int]]] = {True: [], False: []}  # by whether the run's failures lower a - b
    for point, count, sign in zip(points, failed, (True, False), strict=True):
        distance = max(point - scale[0], scale[1] - point)
        runs[far_below(point, scale) == sign].append((distance, count))
    return unseen_reach(runs[True], n, se, level, PAIRED_RATE), unseen_reach(runs[False], n, se, level, PAIRED_RATE)


def independent_difference(
    a: Figure,
    design_a: Design,
    b: Figure,
    design_b: Design,
    rounds: int = DEFAULT_ROUNDS,
    seed: int = DEFAULT_SEED,
    level: float = DEFAULT_LEVEL,
) -> Difference | None:
    """a - b for two runs sampled independently: SE sqrt(se_a^2 + se_b^2), Welch-Satterthwaite df."""
    check_rounds_and_seed(rounds, seed)
    check_level(level)
    (found_a, reason_a), (found_b, reason_b) = figure_spread(a, design_a), figure_spread(b, design_b)
    if found_a is None or found_b is None or reason_a or reason_b:
        return None
    variance = found_a.variance + found_b.variance
    df = variance**2 / (found_a.variance**2 / found_a.df + found_b.variance**2 / found_b.df)
    point = float(a.point()) - float(b.point())  # type: ignore[arg-type]
    return difference_from(t_interval(point, float(np.sqrt(variance)), df, found_a.n + found_b.n, level), None)


@dataclass(frozen=True)
class RankRange:
    """A run's rank among several (1 = best) and the range its rank takes over the middle `level` of resamples."""

    rank: int
    best: int
    worst: int

    def to_dict(self) -> dict[str, int]:
        return {"rank": self.rank, "best": self.best, "worst": self.worst}


def ranks(values: np.ndarray, higher_is_better: bool = True) -> np.ndarray:
    """1 + how many others are strictly better, per row of (rounds, runs): tied runs share the better rank."""
    signed = values if higher_is_better else -values
    return 1 + np.count_nonzero(signed[:, None, :] > signed[:, :, None], axis=2)


def rank_ranges(
    figures: Mapping[str, Figure],
    design: Design,
    rounds: int = DEFAULT_ROUNDS,
    seed: int = DEFAULT_SEED,
    level: float = DEFAULT_LEVEL,
    higher_is_better: bool = True,
    scale: Bounds = None,
) -> dict[str, RankRange]:
    """Each run's rank (1 + the runs strictly better) and rank range from the paired differences on shared units:
    best = 1 + the runs distinguishably better, worst = the runs' count - those distinguishably worse. A pair
    without an interval (one unit per stratum) is not distinguishable; `scale`: the figures' scale, as in
    `paired_difference`.

    Raises a ValueError naming a run whose figure is undefined on the data.
    """
    check_rounds_and_seed(rounds, seed)
    check_level(level)
    names = list(figures)
    points = np.array([figures[name].point() for name in names], dtype=float)
    for name, point in zip(names, points, strict=True):
        if not np.isfinite(point):
            raise ValueError(f"run {name!r}: the figure is undefined on the data, so it has no rank")
    separated = {}
    for i, j in combinations(range(len(names)), 2):
        found = paired_difference(figures[names[i]], figures[names[j]], design, rounds, seed, level, scale=scale)
        if found is not None and found.distinguishable:
            separated[names[i], names[j]] = found.difference
    return ranks_from_pairs(dict(zip(names, points, strict=True)), separated, higher_is_better)


def ranks_from_pairs(
    points: Mapping[str, float], separated: Mapping[tuple[str, str], float], higher_is_better: bool = True
) -> dict[str, RankRange]:
    """Each run's rank (1 + the runs strictly better by `points`) and rank range from the pairs that their paired
    interval separates (`separated[a, b]`: a - b, for each pair whose interval excludes 0): best = 1 + the runs
    distinguishably better, worst = the runs' count - those distinguishably worse."""
    names = list(points)
    index = {name: i for i, name in enumerate(names)}
    sign = 1.0 if higher_is_better else -1.0
    above = np.zeros((len(names), len(names)), dtype=bool)  # above[i, j]: run i distinguishably better than j
    for (a, b), difference in separated.items():
        i, j = index[a], index[b]
        above[i, j], above[j, i] = sign * difference > 0, sign * difference < 0
    point_ranks = ranks(np.array([points[name] for name in names], dtype=float)[None, :], higher_is_better)[0]
    best, worst = 1 + above.sum(axis=0), len(names) - above.sum(axis=1)
    return {
        name: RankRange(int(point_ranks[i]), int(min(best[i], point_ranks[i])), int(max(worst[i], point_ranks[i])))
        for i, name in enumerate(names)
    }
