"""How the judge's row scores follow the humans' on the annotated rows: Pearson's r and the mean difference (judge -
human), each with its interval.

The annotated row is the unit (several annotations of one row are clustered on it): the mean difference is a pooled
ratio of per-row sums (`uncertainty.intervals`, the t interval over rows), Pearson's r a statistic of the
rows' weights (`uncertainty.intervals.statistic_interval`, seeded as kappa's).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ..uncertainty import Design, cluster_sums, interval, interval_reasons, ratio, statistic_interval
from ..uncertainty.design import codes_of
from ..uncertainty.intervals import Interval
from ..uncertainty.variance import FLOAT_NOISE
from .ppi import DEFAULT_LEVEL

ROUNDS = 1000


def row_agreement(
    judge: Mapping[str, tuple[str, float]],
    human: Sequence[tuple[str, float]],
    level: float = DEFAULT_LEVEL,
    seed: int = 0,
) -> dict[str, float | list[float] | None]:
    """{"pearson_r", "mean_difference"} and their `level` intervals ([low, high]; None where undefined), and
    "notes": why a figure is undefined or has no interval (Pearson's r on scores that do not vary is undefined,
    whatever float noise says)."""
    found: dict[str, float | list[float] | None | dict[str, str]] = dict.fromkeys(
        ("pearson_r", "pearson_r_interval", "mean_difference", "mean_difference_interval")
    )
    if len(human) < 2:
        found["notes"] = dict.fromkeys(("pearson_r", "mean_difference"), f"{len(human)} annotation: no interval")
        return found
    rows = [row for row, _ in human]
    h = np.array([score for _, score in human])
    j = np.array([judge[row][1] for row in rows])
    codes, _ = codes_of(rows)
    design = Design.simple(int(codes.max()) + 1, unit="row")
    found["mean_difference"] = float(np.mean(j - h))
    _, sums = cluster_sums(rows, np.column_stack([j - h, np.ones(len(h))]))
    difference = ratio(sums[:, 0], sums[:, 1])
    found["mean_difference_interval"] = bounds(interval(difference, design, ROUNDS, seed, level))
    notes = {}
    if found["mean_difference_interval"] is None:
        notes["mean_difference"] = interval_reasons({"d": difference}, design)["d"] or "no interval"
    constant = [side for side, values in (("human", h), ("judge", j)) if not varies(values)]
    if constant:
        notes["pearson_r"] = f"the {' and '.join(constant)} row scores do not vary: Pearson's r is undefined"
    else:
        found["pearson_r"] = float(np.corrcoef(h, j)[0, 1])
        r = statistic_interval(lambda counts: weighted_r(h, j, counts[codes]), design, ROUNDS, seed, level, (-1, 1))
        found["pearson_r_interval"] = bounds(r)
        if r is None:
            notes["pearson_r"] = "r does not vary over resamples of the rows: no spread to estimate"
    return found | ({"notes": notes} if notes else {})


def varies(values: np.ndarray) -> bool:
    """Whether the values differ by more than float noise on their size (50 as a sum of 0.5 x weights is 50)."""
    return bool(np.ptp(values) > FLOAT_NOISE * max(1.0, float(np.max(np.abs(values)))))


def weighted_r(x: np.ndarray, y: np.ndarray, weights: np.ndarray) -> float:
    """Pearson's r with each pair counted `weights` times (NaN where either side does not vary)."""
    total = weights.sum()
    if total <= 0:
        return float("nan")
    dx, dy = x - weights @ x / total, y - weights @ y / total
    sxx, syy = weights @ (dx * dx), weights @ (dy * dy)
    if not (sxx > FLOAT_NOISE**2 * (weights @ (x * x)) and syy > FLOAT_NOISE**2 * (weights @ (y * y))):
        return float("nan")  # a side that does not vary, but for float noise
    return float(weights @ (dx * dy) / np.sqrt(sxx * syy))


def bounds(found: Interval | None) -> list[float] | None:
    return None if found is None else [found.low, found.high]


__all__ = ["row_agreement", "weighted_r"]
