"""The studentized bootstrap (bootstrap-t), the interval method the package used before the t interval on the
figure's scale: kept here as the alternative `interval_coverage.py` measures beside the package's method.

The studentized (bootstrap-t) quantiles of a figure: how far (figure* - figure) / SE* reaches over resamples.

A resample draws, within each stratum of two or more units
the figure rests on, as many of its units as it holds (with replacement); the figure moves by the sum of the drawn
units' linearized contributions, centred per stratum, and its SE* is the `variance.spread` formula on the drawn
units. Where the units' values are skewed (a few zeros among scores near 90), the t of a resample is skewed too, and
its quantiles reach further on one side than Student's t (Hall 1988, "Theoretical comparison of bootstrap confidence
intervals"; the t interval covered 92.7% at 5 prompts per task in bench/interval_coverage.py, the studentized one
94-96%). The draws depend only on the strata's sizes, the rounds and the seed, so figures on the same units share
them, and a few are kept (`draws`). Too few units (MIN_UNITS) or a rare value that most resamples miss (more
than (1 - level) / 2 of them without spread) leave the quantiles unknown: the caller takes Student's t there.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from longform_eval.metric.uncertainty.design import Design

MIN_UNITS = 20  # fewer units: the bootstrap t's quantiles are erratic (a handful of distinct resamples); Student's t
CHUNK_ROUNDS = 256  # resamples drawn and reduced at a time, so memory stays at CHUNK_ROUNDS x units
CACHED_ENTRIES = 1 << 22  # draws kept for reuse only up to this many indices (16 MB)


def chunks(sizes: tuple[int, ...], rounds: int, seed: int) -> Iterator[tuple[np.ndarray, ...]]:
    """The seeded resamples, CHUNK_ROUNDS at a time: per stratum of `sizes`, (chunk, size) indices drawn with
    replacement."""
    rng = np.random.default_rng(seed)
    for start in range(0, rounds, CHUNK_ROUNDS):
        size = min(CHUNK_ROUNDS, rounds - start)
        yield tuple(rng.integers(0, n, size=(size, n), dtype=np.int32) for n in sizes)


@lru_cache(maxsize=8)
def kept_chunks(sizes: tuple[int, ...], rounds: int, seed: int) -> tuple[tuple[np.ndarray, ...], ...]:
    found = tuple(chunks(sizes, rounds, seed))
    for chunk in found:
        for array in chunk:
            array.setflags(write=False)
    return found


def draws(sizes: tuple[int, ...], rounds: int, seed: int) -> Iterable[tuple[np.ndarray, ...]]:
    """The resamples of `chunks`, the same whether kept (small designs, shared by the figures on the same units)
    or drawn afresh."""
    small = sum(sizes) * rounds <= CACHED_ENTRIES
    return kept_chunks(sizes, rounds, seed) if small else chunks(sizes, rounds, seed)


@dataclass(frozen=True)
class StudentizedDraws:
    """The bootstrap t of each resample whose drawn units vary, (figure* - figure) / SE*; `dropped` counts those
    that do not (SE* = 0: the t is undefined) out of `rounds`."""

    t: np.ndarray
    dropped: int
    rounds: int

    def usable(self, level: float) -> bool:
        """Whether the dropped resamples are too few to hold a tail: with more than (1 - level) / 2 of them (a rare
        value that most resamples miss) one side's quantile is unknown."""
        return self.dropped <= (1 - level) / 2 * self.rounds and len(self.t) >= 2

    def quantiles(self, level: float) -> tuple[float, float]:
        """The lower and upper (1 -+ level) / 2 quantiles (rounded outwards, so that the interval excludes 0
        exactly where `p_value` is below 1 - level)."""
        low = np.quantile(self.t, (1 - level) / 2, method="lower")
        high = np.quantile(self.t, (1 + level) / 2, method="higher")
        return float(low), float(high)

    def p_value(self, observed: float) -> float:
        """Two-sided: twice the smaller share of resamples at or beyond the observed t on either side."""
        above, below = np.mean(self.t >= observed), np.mean(self.t <= observed)
        return float(min(1.0, 2 * min(above, below)))


def studentized(z: np.ndarray, rests: np.ndarray, design: Design, rounds: int, seed: int) -> StudentizedDraws | None:
    """The bootstrap t over `rounds` seeded resamples of the units in `rests`. None where the figure rests on fewer
    than MIN_UNITS units in strata of two or more."""
    groups = [values - values.mean() for values in design.split(z, rests) if len(values) >= 2]
    if sum(len(values) for values in groups) < MIN_UNITS:
        return None
    moved, variance, varies = (np.empty(rounds), np.empty(rounds), np.empty(rounds, dtype=bool))
    start = 0
    for chunk in draws(tuple(len(v) for v in groups), rounds, seed):
        size = len(chunk[0])
        stop = start + size
        moved[start:stop], variance[start:stop], varies[start:stop] = 0.0, 0.0, False
        for values, picked in zip(groups, chunk, strict=True):
            drawn = values[picked]
            n = len(values)
            spread = np.ptp(drawn, axis=1) > 0  # exact: identical drawn values have no spread, whatever the rounding
            centred = drawn - drawn.mean(axis=1, keepdims=True)
            moved[start:stop] += drawn.sum(axis=1)
            variance[start:stop] += np.where(spread, n / (n - 1) * (centred**2).sum(axis=1), 0.0)
            varies[start:stop] |= spread
        start = stop
    return StudentizedDraws(moved[varies] / np.sqrt(variance[varies]), int(rounds - varies.sum()), rounds)
