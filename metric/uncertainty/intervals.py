"""Percentile bootstrap intervals on figures, from seeded resamples of the design's units."""

from __future__ import annotations

import numbers
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
from scipy.stats import norm

from .design import Design
from .figures import Figure
from .resampling import check_rounds_and_seed, replicates, unit_counts

DEFAULT_ROUNDS = 2000
DEFAULT_SEED = 0
DEFAULT_LEVEL = 0.95


def check_level(level: object) -> None:
    real = isinstance(level, numbers.Real) and not isinstance(level, (bool, np.bool_))
    if not real or not 0 < level < 1:
        raise ValueError(f"level must be a number in (0, 1), got {level!r}")


def interval_method(
    design: Design, rounds: int = DEFAULT_ROUNDS, seed: int = DEFAULT_SEED, level: float = DEFAULT_LEVEL
) -> str:
    """The words `scores.json` records as `interval_method`, e.g.
    "95% percentile bootstrap over prompts, stratified by task, 2000 resamples, seed 0"."""
    return f"{level:.0%} percentile bootstrap over {design.describe()}, {rounds} resamples, seed {seed}"


@dataclass(frozen=True)
class Interval:
    """A figure's bootstrap interval: `point` the figure, `low`..`high` at `level`, `se` the bootstrap standard
    deviation, `n` the units it rests on, `rounds` the resamples used and `dropped` those where it was undefined."""

    point: float
    low: float
    high: float
    se: float
    n: int
    rounds: int
    dropped: int = 0
    level: float = DEFAULT_LEVEL

    def to_dict(self) -> dict[str, float | int]:
        """The `scores.json` entry: {"low", "high", "se", "n"}."""
        return {"low": self.low, "high": self.high, "se": self.se, "n": self.n}

    @property
    def width(self) -> float:
        return self.high - self.low

    def contains(self, value: float) -> bool:
        return self.low <= value <= self.high


def normal_interval(point: float, se: float, n: int, level: float = DEFAULT_LEVEL) -> Interval:
    """point ± z * se: the interval of a figure whose SE comes from elsewhere than a bootstrap (a model's own standard
    error, a linearisation), with `rounds` 0."""
    half = float(norm.ppf((1 + level) / 2)) * se
    return Interval(point, point - half, point + half, se, n, rounds=0, level=level)


def percentile_bounds(draws: np.ndarray, level: float) -> tuple[float, float]:
    low, high = np.quantile(draws, [(1 - level) / 2, (1 + level) / 2])
    return float(low), float(high)


def summarize(point: float, draws: np.ndarray, n: int, level: float) -> Interval | None:
    """The interval from one figure's bootstrap draws (NaN: an undefined resample, dropped and counted)."""
    defined = draws[np.isfinite(draws)]
    if len(defined) < 2:
        return None
    low, high = percentile_bounds(defined, level)
    se = float(np.std(defined, ddof=1))
    return Interval(point, low, high, se, n, len(defined), len(draws) - len(defined), level)


def intervals(
    figures: Mapping[str, Figure],
    design: Design,
    rounds: int = DEFAULT_ROUNDS,
    seed: int = DEFAULT_SEED,
    level: float = DEFAULT_LEVEL,
) -> dict[str, Interval | None]:
    """Every figure's interval, all from the same resamples (None: the figure is undefined on the data, or on
    fewer than 2 resamples)."""
    check_rounds_and_seed(rounds, seed)
    check_level(level)
    names = list(figures)
    draws = replicates([figures[name] for name in names], design, rounds, seed, names)
    result: dict[str, Interval | None] = {}
    for position, name in enumerate(names):
        point = figures[name].point()
        result[name] = None if point is None else summarize(point, draws[:, position], figures[name].n, level)
    return result


def interval(
    figure: Figure,
    design: Design,
    rounds: int = DEFAULT_ROUNDS,
    seed: int = DEFAULT_SEED,
    level: float = DEFAULT_LEVEL,
) -> Interval | None:
    """One figure's interval (see `intervals`)."""
    return intervals({"figure": figure}, design, rounds, seed, level)["figure"]


def statistic_interval(
    statistic: Callable[[np.ndarray], float],
    design: Design,
    rounds: int = DEFAULT_ROUNDS,
    seed: int = DEFAULT_SEED,
    level: float = DEFAULT_LEVEL,
) -> Interval | None:
    """The interval of any statistic of weighted units, for a figure that is no function of sums (a refitted model,
    such as a length-controlled win rate): `statistic(counts)` gets how often each unit was drawn (ones for the
    data itself) and returns the figure, NaN where undefined. It sees the same resamples as `intervals` with the
    same design, rounds and seed, one Python call per resample (slower than a `Figure`).
    """
    check_rounds_and_seed(rounds, seed)
    check_level(level)
    point = float(statistic(np.ones(design.n_units)))
    if not np.isfinite(point):
        return None
    rng = np.random.default_rng(seed)
    draws = np.array([statistic(counts) for chunk in unit_counts(design, rounds, rng) for counts in chunk], dtype=float)
    return summarize(point, draws, design.n_units, level)
