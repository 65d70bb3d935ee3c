"""PPI++ for a mean: lam * mean(judge on all unlabelled) + mean(human - lam * judge) over the labelled units.

`lam` is tuned to minimise the variance (0: the human-only estimate; 1: plain PPI) and clipped to [0, 1], as
ppi-python's `ppi_mean_ci` does; the interval is the normal one of that estimate. With clusters (several labels of
one item, e.g. one prompt judged in several comparisons), variances are those of cluster sums (a clustered sandwich),
and the labelled and unlabelled sets are still taken as independent samples.

The divisor: every variance here divides by n - 1 (`np.var(ddof=1)`; clustered, the factor G / (G - 1) over G
clusters), the unbiased variance and the package's rule for every interval (`uncertainty.variance`: the n/(n-1)
small-sample factor). ppi-python divides by n (`np.std`), so its bounds are narrower by up to sqrt(n / (n - 1)) on
each part: with the same lam the estimates are equal and the widths differ by at most 1/n relative
(tests/metric/test_calibration.py checks both). Measured on win rates (labels 0 / 0.5 / 1, a judge right 70% of the
time; `python bench/calibration_coverage.py`, 1,000 draws): the bounds differ by at most 0.0036 with 25 human labels
and 500 judge-only ones, 0.0004 with 100 and 2,000 (bench/RESULTS.md). The tuned lam is ppi-python's.

No interval, never a zero width: where the estimate's SE is zero up to float noise (every label alike, or every
cluster's labels averaging the same, e.g. a 0 and a 1 on every item) the Estimate has `low` and `high` None and
`reason` says why: the data show no spread to estimate a variance from, which is no evidence that there is none.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np
from numpy.typing import ArrayLike

from ..uncertainty.intervals import quantile

DEFAULT_LEVEL = 0.95


NEGLIGIBLE = 1e-9  # an SE below this share of the labels' size is float noise (7.6e-15 for 100 labels of 50): none


@dataclass(frozen=True)
class Estimate:
    """A figure with its interval: `method` 'judge-only', 'human-only' or 'ppi++' (then `lam` is its tuned power);
    `low` and `high` None where it has no interval, `reason` saying why."""

    method: str
    estimate: float
    low: float | None
    high: float | None
    se: float
    n_human: int
    n_judge: int
    lam: float | None = None
    reason: str | None = None

    def to_dict(self) -> dict:
        return asdict(self)


def as_vector(values: ArrayLike, what: str) -> np.ndarray:
    vector = np.asarray(values, dtype=float).reshape(-1)
    if not np.all(np.isfinite(vector)):
        raise ValueError(f"{what}: every label must be a finite number")
    return vector


def mean_variance(values: np.ndarray, clusters: ArrayLike | None = None) -> float:
    """The variance of the mean of `values`: s^2 / n, or with clusters the variance of cluster sums scaled to it."""
    n = len(values)
    if n < 2:
        return float("nan")
    if clusters is None:
        return float(np.var(values, ddof=1) / n)
    _, index = np.unique(np.asarray(clusters), return_inverse=True)
    deviations = np.bincount(index, weights=values - values.mean())
    groups = len(deviations)
    if groups < 2:
        return float("nan")
    return float(groups / (groups - 1) * np.sum(deviations**2) / n**2)


def mean_covariance(a: np.ndarray, b: np.ndarray, clusters: ArrayLike | None = None) -> float:
    """Cov(mean a, mean b), by the same rule as `mean_variance`."""
    return (mean_variance(a + b, clusters) - mean_variance(a - b, clusters)) / 4


def normal_bounds(estimate: float, se: float, level: float) -> tuple[float, float]:
    """estimate ± z * se (the bounds only; `uncertainty.intervals.normal_interval` makes an `Interval`)."""
    z = quantile(level, None)
    return estimate - z * se, estimate + z * se


def no_spread(se: float, *labels: np.ndarray) -> bool:
    """Whether `se` is zero up to float noise against the size of the labels it comes from."""
    size = max([1.0, *(float(np.max(np.abs(x))) for x in labels if len(x))])
    return not np.isfinite(se) or se <= NEGLIGIBLE * size


def with_bounds(
    method: str, estimate: float, se: float, level: float, counts: tuple[int, int], lam: float | None, why: str | None
) -> Estimate:
    """The Estimate with its normal interval, or, where `why` says the SE is no SE, without one."""
    if why is not None:
        return Estimate(method, estimate, None, None, 0.0, *counts, lam, why)
    low, high = normal_bounds(estimate, se, level)
    return Estimate(method, estimate, low, high, se, *counts, lam)


def spread_reason(values: np.ndarray, clusters: ArrayLike | None) -> str:
    """Why labels whose mean has no variance get no interval."""
    if np.ptp(values) <= NEGLIGIBLE * max(1.0, float(np.max(np.abs(values)))):
        return f"all {len(values)} labels are {float(values[0]):g}: no variance to estimate"
    if clusters is not None:
        return (
            "every item's labels average the same: no variance between items to estimate, though the labels within "
            "an item differ (label more items)"
        )
    return "the labels show no spread: no variance to estimate"


def clusters_of(labels: Sequence[tuple[str, object]]) -> list[str] | None:
    """The unit of each label when a unit has several (they are clustered on it); None when each has one."""
    ids = [unit for unit, _ in labels]
    return ids if len(set(ids)) < len(ids) else None


def classical_mean(
    labels: ArrayLike, method: str, level: float = DEFAULT_LEVEL, clusters: ArrayLike | None = None
) -> Estimate:
    """The plain mean of one kind of label (the judge's on every unit, or the humans' on theirs) and its interval."""
    values = as_vector(labels, method)
    if len(values) == 0:
        raise ValueError(f"{method}: no labels")
    estimate, se = float(values.mean()), float(np.sqrt(mean_variance(values, clusters)))
    counts = (len(values), 0) if method == "human-only" else (0, len(values))
    why = spread_reason(values, clusters) if no_spread(se, values) else None
    return with_bounds(method, estimate, se, level, counts, None, why)


def tuned_lam(
    human: np.ndarray, judged: np.ndarray, rest: np.ndarray, clusters: ArrayLike | None, rest_clusters: ArrayLike | None
) -> float:
    """The lam minimising Var(lam * mean(rest)) + Var(mean(human - lam * judged)), clipped to [0, 1].

    Without clusters it is ppi-python's (`_calc_lam_glm` for a mean): cov(human, judged) over (1 + n / N) times the
    variance of the judge's labels on all units, labelled and not (pooled: steadier than either set alone). With
    clusters the variances and covariance are the clustered ones (`mean_variance`) of each set.
    """
    if clusters is None and rest_clusters is None:
        n, big_n = len(human), len(rest)
        pooled = float(np.var(np.concatenate([judged, rest]), ddof=1))
        if not np.isfinite(pooled) or pooled <= 0:
            return 0.0
        covariance = float(np.mean((human - human.mean()) * (judged - judged.mean())))
        return float(np.clip(covariance / ((1 + n / big_n) * pooled), 0.0, 1.0))
    spread = mean_variance(rest, rest_clusters) + mean_variance(judged, clusters)
    if not np.isfinite(spread) or spread <= 0:
        return 0.0
    return float(np.clip(mean_covariance(human, judged, clusters) / spread, 0.0, 1.0))


def ppi_mean(
    human: ArrayLike,
    judge_on_human: ArrayLike,
    judge_on_rest: ArrayLike,
    level: float = DEFAULT_LEVEL,
    lam: float | None = None,
    clusters: ArrayLike | None = None,
    rest_clusters: ArrayLike | None = None,
) -> Estimate:
    """The prediction-powered estimate of the humans' mean label.

    `human[i]` and `judge_on_human[i]` label the same unit (a vote and the judge's verdict on that comparison; an
    outcome as 1 / 0.5 / 0 for a win rate); `judge_on_rest` are the judge's labels on the units no human labelled.
    `clusters` / `rest_clusters`: the item of each label, when several labels share one.
    """
    y, f = as_vector(human, "human"), as_vector(judge_on_human, "judge_on_human")
    rest = as_vector(judge_on_rest, "judge_on_rest")
    if len(y) != len(f):
        raise ValueError(f"human ({len(y)}) and judge_on_human ({len(f)}) must label the same units")
    if len(y) < 2 or len(rest) < 2:
        raise ValueError("ppi_mean needs at least two human labels and two judge-only labels")
    lam = tuned_lam(y, f, rest, clusters, rest_clusters) if lam is None else float(lam)
    estimate = float(lam * rest.mean() + (y - lam * f).mean())
    variance = lam**2 * mean_variance(rest, rest_clusters) + mean_variance(y - lam * f, clusters)
    se = float(np.sqrt(variance))
    why = None
    if no_spread(se, y, f, rest):
        why = "neither the human labels nor the judge's show spread: no variance to estimate"
    return with_bounds("ppi++", estimate, se, level, (len(y), len(y) + len(rest)), lam, why)
