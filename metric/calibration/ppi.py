"""PPI++ for a mean: lam * mean(judge on all unlabelled) + mean(human - lam * judge) over the labelled units.

`lam` is tuned to minimise the variance (0: the human-only estimate; 1: plain PPI) and clipped to [0, 1], as
ppi-python's `ppi_mean_ci` does; the interval is that estimate's t interval (`estimate.with_bounds`: Student's t at
the labels' Welch-Satterthwaite degrees of freedom, where ppi-python takes the normal quantile). With clusters
(several labels of one item, e.g. one prompt judged in several comparisons), variances are those of cluster sums (a
clustered sandwich), and the labelled and unlabelled sets are still taken as independent samples.

The divisor: every variance here divides by n - 1 (`np.var(ddof=1)`; clustered, the factor G / (G - 1) over G
clusters), the unbiased variance and the package's rule for every interval (`uncertainty.variance`: the n/(n-1)
small-sample factor). ppi-python divides by n (`np.std`), so its bounds are narrower by up to sqrt(n / (n - 1)) on
each part: with the same lam the estimates are equal and the widths differ by at most 1/n relative, beside the
quantile's t(df) / z (tests/metric/test_calibration.py checks both). Measured on win rates (labels 0 / 0.5 / 1, a
judge right 70% of the time; `python bench/calibration_coverage.py`, 1,000 draws), with the normal quantile: the
divisor moves the bounds by at most 0.0036 with 25 human labels and 500 judge-only ones, 0.0004 with 100 and 2,000
(bench/RESULTS.md); the t quantile widens the interval by about 5% at 25 labels, where the normal one covered 92.5%
and t covers 93.8% (4,000 draws of `simulation`; 91.8% at 10 labels, 95.2% at 50). The tuned lam is ppi-python's.

No interval, never a zero width: where the estimate's SE is zero up to float noise (every label alike, or every
cluster's labels averaging the same, e.g. a 0 and a 1 on every item) the Estimate has `low` and `high` None and
`reason` says why, naming the labels that show no spread: the data show no spread to estimate a variance from, which
is no evidence that there is none. Given the figure's `scale`, the estimate and its bounds are cut to it together, and
labels that all sit at one end of it get Wilson's one-sided bound over their units (`estimate.on_scale`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from ..uncertainty.variance import satterthwaite
from .estimate import DEFAULT_LEVEL, Estimate, Scale, on_scale, with_bounds

NEGLIGIBLE = 1e-9  # an SE below this share of the labels' size is float noise (7.6e-15 for 100 labels of 50): none


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


def no_spread(se: float, *labels: np.ndarray) -> bool:
    """Whether `se` is zero up to float noise against the size of the labels it comes from."""
    size = max([1.0, *(float(np.max(np.abs(x))) for x in labels if len(x))])
    return not np.isfinite(se) or se <= NEGLIGIBLE * size


def spread_reason(values: np.ndarray, clusters: ArrayLike | None) -> str:
    """Why labels whose mean has no variance get no interval."""
    if not varies(values):
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


def units_of(values: np.ndarray, clusters: ArrayLike | None) -> int:
    """How many independent units the labels rest on: their clusters, or the labels themselves."""
    return len(values) if clusters is None else len(np.unique(np.asarray(clusters)))


def classical_mean(
    labels: ArrayLike,
    method: str,
    level: float = DEFAULT_LEVEL,
    clusters: ArrayLike | None = None,
    scale: Scale | None = None,
) -> Estimate:
    """The plain mean of one kind of label (the judge's on every unit, or the humans' on theirs) and its t interval
    (units - 1 degrees of freedom), on `scale` where given (`estimate.on_scale`)."""
    values = as_vector(labels, method)
    if len(values) == 0:
        raise ValueError(f"{method}: no labels")
    estimate, se = float(values.mean()), float(np.sqrt(mean_variance(values, clusters)))
    counts = (len(values), 0) if method == "human-only" else (0, len(values))
    why = spread_reason(values, clusters) if no_spread(se, values) else None
    units = units_of(values, clusters)
    found = with_bounds(method, estimate, se, level, counts, None, why, float(max(units - 1, 1)))
    return on_scale(found, scale, level, units)


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
    scale: Scale | None = None,
) -> Estimate:
    """The prediction-powered estimate of the humans' mean label.

    `human[i]` and `judge_on_human[i]` label the same unit (a vote and the judge's verdict on that comparison; an
    outcome as 1 / 0.5 / 0 for a win rate); `judge_on_rest` are the judge's labels on the units no human labelled.
    `clusters` / `rest_clusters`: the item of each label, when several labels share one. `scale`: the figure's range
    (a win rate's (0, 1)), which the estimate and its interval are cut to together (`estimate.on_scale`).
    """
    y, f = as_vector(human, "human"), as_vector(judge_on_human, "judge_on_human")
    rest = as_vector(judge_on_rest, "judge_on_rest")
    if len(y) != len(f):
        raise ValueError(f"human ({len(y)}) and judge_on_human ({len(f)}) must label the same units")
    if len(y) < 2 or len(rest) < 2:
        raise ValueError("ppi_mean needs at least two human labels and two judge-only labels")
    lam = tuned_lam(y, f, rest, clusters, rest_clusters) if lam is None else float(lam)
    estimate = float(lam * rest.mean() + (y - lam * f).mean())
    parts = [lam**2 * mean_variance(rest, rest_clusters), mean_variance(y - lam * f, clusters)]
    se = float(np.sqrt(sum(parts)))
    units = units_of(y, clusters)
    df = satterthwaite(parts, [float(units_of(rest, rest_clusters) - 1), float(units - 1)])
    why = constant_sides(y, f, rest, lam, clusters) if no_spread(se, y, f, rest) else None
    found = with_bounds("ppi++", estimate, se, level, (len(y), len(y) + len(rest)), lam, why, df)
    return on_scale(found, scale, level, units)


def constant_sides(y: np.ndarray, f: np.ndarray, rest: np.ndarray, lam: float, clusters: ArrayLike | None) -> str:
    """Why PPI++'s estimate has no variance, naming the labels that show no spread: with lam 0 the human labels alone
    (the judge's do not enter), else the judge's other labels and what of the labelled units does not vary."""
    if lam == 0:
        return f"the human labels: {spread_reason(y, clusters)} (the judge's labels do not enter: lam is 0)"
    sides = {"the human labels": y, "the judge's labels on the same units": f, "the judge's other labels": rest}
    constant = [f"{name} (all {float(values[0]):g})" for name, values in sides.items() if not varies(values)]
    if varies(y) or varies(f):
        constant.append(f"the human labels less {lam:.2f} x the judge's on the same units")
    listed = ", ".join(constant[:-1]) + (" and " if len(constant) > 1 else "") + constant[-1]
    return f"{listed} show no spread: no variance to estimate"


def varies(values: np.ndarray) -> bool:
    return bool(np.ptp(values) > NEGLIGIBLE * max(1.0, float(np.max(np.abs(values)))))
