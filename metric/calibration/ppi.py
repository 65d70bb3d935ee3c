"""PPI++ for a mean: lam * mean(judge on all unlabelled) + mean(human - lam * judge) over the labelled units.

`lam` is tuned to minimise the variance (0: the human-only estimate; 1: plain PPI) and clipped to [0, 1], as
ppi-python's `ppi_mean_ci` does; the interval is the normal one of that estimate. With clusters (several labels of
one item, e.g. one prompt judged in several comparisons), variances are those of cluster sums (a clustered sandwich),
and the labelled and unlabelled sets are still taken as independent samples.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np
from numpy.typing import ArrayLike

from ..uncertainty.intervals import quantile

DEFAULT_LEVEL = 0.95


@dataclass(frozen=True)
class Estimate:
    """A figure with its interval: `method` 'judge-only', 'human-only' or 'ppi++' (then `lam` is its tuned power)."""

    method: str
    estimate: float
    low: float
    high: float
    se: float
    n_human: int
    n_judge: int
    lam: float | None = None

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
    low, high = normal_bounds(estimate, se, level)
    n_human, n_judge = (len(values), 0) if method == "human-only" else (0, len(values))
    return Estimate(method, estimate, low, high, se, n_human, n_judge)


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
    low, high = normal_bounds(estimate, se, level)
    return Estimate("ppi++", estimate, low, high, se, len(y), len(y) + len(rest), lam)
