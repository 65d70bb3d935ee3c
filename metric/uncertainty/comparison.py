"""Differences between runs (paired on shared units, or independent) and rank ranges of several runs.

Paired: both figures on the same resamples of the shared units, so what the prompts share cancels; the
difference's interval is far tighter than two separate intervals suggest. A difference whose interval holds 0
is not `distinguishable`: print it as a tie, never as a ranking.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from .design import Design
from .figures import Figure
from .intervals import DEFAULT_LEVEL, DEFAULT_ROUNDS, DEFAULT_SEED, check_level, percentile_bounds
from .power import DEFAULT_POWER, minimum_detectable_difference
from .resampling import check_rounds_and_seed, replicates, replicates_from


@dataclass(frozen=True)
class Difference:
    """Figure a minus figure b: the point, its interval at `level`, the bootstrap SE and two-sided p-value.

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

    @property
    def distinguishable(self) -> bool:
        """The interval excludes 0."""
        return self.low > 0 or self.high < 0

    @property
    def minimum_detectable(self) -> float:
        """The smallest true difference these units detect with 80% power at the interval's level."""
        return minimum_detectable_difference(self.se, 1 - self.level, DEFAULT_POWER)

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
        }


def bootstrap_p_value(draws: np.ndarray) -> float:
    """Two-sided: twice the smaller share of draws on either side of 0, +1-corrected so it is never 0."""
    below = (np.count_nonzero(draws <= 0) + 1) / (len(draws) + 1)
    above = (np.count_nonzero(draws >= 0) + 1) / (len(draws) + 1)
    return float(min(1.0, 2 * min(below, above)))


def difference_of(
    point: float, draws: np.ndarray, n_paired: int | None, level: float, rounds: int
) -> Difference | None:
    defined = draws[np.isfinite(draws)]
    if len(defined) < 2:
        return None
    low, high = percentile_bounds(defined, level)
    se = float(np.std(defined, ddof=1))
    p_value = bootstrap_p_value(defined)
    return Difference(point, low, high, se, p_value, n_paired, len(defined), rounds - len(defined), level)


def points_of(a: Figure, b: Figure) -> tuple[float, float] | None:
    point_a, point_b = a.point(), b.point()
    return None if point_a is None or point_b is None else (point_a, point_b)


def paired_difference(
    a: Figure,
    b: Figure,
    design: Design,
    rounds: int = DEFAULT_ROUNDS,
    seed: int = DEFAULT_SEED,
    level: float = DEFAULT_LEVEL,
) -> Difference | None:
    """a - b for two runs' figures on the same units (the shared prompts; pass `scored` = both scored when
    building them), evaluated on the same resamples. None where either figure is undefined."""
    check_rounds_and_seed(rounds, seed)
    check_level(level)
    points = points_of(a, b)
    if points is None:
        return None
    draws = replicates([a, b], design, rounds, seed, ["a", "b"])
    both = np.any(a.columns != 0, axis=1) & np.any(b.columns != 0, axis=1)
    return difference_of(points[0] - points[1], draws[:, 0] - draws[:, 1], int(np.count_nonzero(both)), level, rounds)


def independent_difference(
    a: Figure,
    design_a: Design,
    b: Figure,
    design_b: Design,
    rounds: int = DEFAULT_ROUNDS,
    seed: int = DEFAULT_SEED,
    level: float = DEFAULT_LEVEL,
) -> Difference | None:
    """a - b for two runs resampled independently (different prompts, or a comparison that ignores the pairing)."""
    check_rounds_and_seed(rounds, seed)
    check_level(level)
    points = points_of(a, b)
    if points is None:
        return None
    rng = np.random.default_rng(seed)
    draws_a = replicates_from([a], design_a, rounds, rng, ["a"])[:, 0]
    draws_b = replicates_from([b], design_b, rounds, rng, ["b"])[:, 0]
    return difference_of(points[0] - points[1], draws_a - draws_b, None, level, rounds)


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
) -> dict[str, RankRange]:
    """Each run's rank and rank range from the joint bootstrap of all runs on shared units (as Chatbot Arena shows).

    Raises a ValueError naming a run whose figure is undefined on the data. Resamples on which any figure is
    undefined are left out.
    """
    check_rounds_and_seed(rounds, seed)
    check_level(level)
    names = list(figures)
    points = np.array([figures[name].point() for name in names], dtype=float)
    for name, point in zip(names, points, strict=True):
        if not np.isfinite(point):
            raise ValueError(f"run {name!r}: the figure is undefined on the data, so it has no rank")
    draws = replicates([figures[name] for name in names], design, rounds, seed, names)
    draws = draws[np.isfinite(draws).all(axis=1)]
    point_ranks = ranks(points[None, :], higher_is_better)[0]
    resampled = ranks(draws, higher_is_better) if len(draws) else point_ranks[None, :]
    best = np.quantile(resampled, (1 - level) / 2, axis=0, method="lower")
    worst = np.quantile(resampled, (1 + level) / 2, axis=0, method="higher")
    return {name: RankRange(int(point_ranks[i]), int(best[i]), int(worst[i])) for i, name in enumerate(names)}
