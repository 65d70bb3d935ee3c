"""How the judge's row scores follow the humans' on the annotated rows: Pearson's r and the mean difference (judge -
human), each with its interval.

The annotated row is the unit (several annotations of one row are clustered on it): the mean difference is a pooled
ratio of per-row sums (`uncertainty.intervals`, a studentized bootstrap over rows), Pearson's r a statistic of the
rows' weights (`uncertainty.intervals.statistic_interval`, seeded as kappa's).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ..uncertainty import Design, cluster_sums, interval, ratio, statistic_interval
from ..uncertainty.design import codes_of
from ..uncertainty.intervals import Interval
from .ppi import DEFAULT_LEVEL

ROUNDS = 1000


def row_agreement(
    judge: Mapping[str, tuple[str, float]],
    human: Sequence[tuple[str, float]],
    level: float = DEFAULT_LEVEL,
    seed: int = 0,
) -> dict[str, float | list[float] | None]:
    """{"pearson_r", "mean_difference"} and their `level` intervals ([low, high]; None where undefined)."""
    found: dict[str, float | list[float] | None] = dict.fromkeys(
        ("pearson_r", "pearson_r_interval", "mean_difference", "mean_difference_interval")
    )
    if len(human) < 2:
        return found
    rows = [row for row, _ in human]
    h = np.array([score for _, score in human])
    j = np.array([judge[row][1] for row in rows])
    codes, _ = codes_of(rows)
    design = Design.simple(int(codes.max()) + 1, unit="row")
    found["mean_difference"] = float(np.mean(j - h))
    _, sums = cluster_sums(rows, np.column_stack([j - h, np.ones(len(h))]))
    found["mean_difference_interval"] = bounds(interval(ratio(sums[:, 0], sums[:, 1]), design, ROUNDS, seed, level))
    if h.std() > 0 and j.std() > 0:
        found["pearson_r"] = float(np.corrcoef(h, j)[0, 1])
        r = statistic_interval(lambda counts: weighted_r(h, j, counts[codes]), design, ROUNDS, seed, level, (-1, 1))
        found["pearson_r_interval"] = bounds(r)
    return found


def weighted_r(x: np.ndarray, y: np.ndarray, weights: np.ndarray) -> float:
    """Pearson's r with each pair counted `weights` times (NaN where either side does not vary)."""
    total = weights.sum()
    if total <= 0:
        return float("nan")
    dx, dy = x - weights @ x / total, y - weights @ y / total
    sxx, syy = weights @ (dx * dx), weights @ (dy * dy)
    if not (sxx > 0 and syy > 0):
        return float("nan")
    return float(weights @ (dx * dy) / np.sqrt(sxx * syy))


def bounds(found: Interval | None) -> list[float] | None:
    return None if found is None else [found.low, found.high]


__all__ = ["row_agreement", "weighted_r"]
