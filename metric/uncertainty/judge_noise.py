"""Judge noise: how much another judge sample would move a row's score, and a figure's variance split in two.

With K judge samples per row (one row of `samples`, NaN where a sample is unscored), the row score is the mean
of its scored samples. Model: row score = prompt effect + judge noise, the noise of one sample having the
within-row variance s_w^2 (pooled over rows with two or more scored samples; `judge_sd` = s_w). A figure's
sampling variance, as the bootstrap over prompts measures it from the row scores, is then

    Var(figure) = prompt part + judge part,   judge part = s_w^2 * sum_i c_i^2 / K_i

where c_i is the figure's derivative in row i's score (1/n for a mean of n rows; scale / (strata * n_j) for a
stratified mean) and K_i the row's scored samples. More judge samples shrink only the judge part, more prompts
shrink both: `VarianceSplit.se_with` says what either buys.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .figures import Figure, divide

RELATIVE_STEP = 1e-6  # central differences of a figure in its sums


def sample_matrix(samples: np.ndarray) -> np.ndarray:
    array = np.asarray(samples, dtype=float)
    if array.ndim != 2:
        raise ValueError(f"samples: expected a (rows, judge samples) array, got shape {array.shape}")
    return array


def row_scores(samples: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row's score, the mean of its scored samples (NaN if none), and how many samples were scored."""
    array = sample_matrix(samples)
    scored = np.isfinite(array)
    counts = scored.sum(axis=1)
    return divide(np.where(scored, array, 0.0).sum(axis=1), counts.astype(float)), counts


def within_row_variance(samples: np.ndarray) -> tuple[float | None, int]:
    """The pooled within-row variance of single judge samples and its degrees of freedom (sum of K_i - 1 over
    rows with K_i >= 2 scored samples); None when no row has two."""
    array = sample_matrix(samples)
    scores, counts = row_scores(array)
    repeated = counts >= 2
    degrees = int((counts[repeated] - 1).sum())
    if not degrees:
        return None, 0
    deviations = np.where(np.isfinite(array[repeated]), array[repeated] - scores[repeated, None], 0.0)
    return float((deviations**2).sum() / degrees), degrees


def judge_sd(samples: np.ndarray) -> float | None:
    """The within-row standard deviation of row scores across judge samples (None without repeated samples)."""
    variance, _ = within_row_variance(samples)
    return None if variance is None else math.sqrt(variance)


def influence(build: Callable[[np.ndarray], Figure], scores: np.ndarray) -> np.ndarray | None:
    """d figure / d row score, per row, for a figure whose columns are affine in the row scores (every builder
    in `figures` is). None where the figure is undefined."""
    base, shifted = build(scores), build(scores + 1.0)
    if base.columns.shape != shifted.columns.shape:
        raise ValueError("build: the figure's columns must not depend on the row scores' values")
    loadings = shifted.columns - base.columns
    sums = base.columns.sum(axis=0)
    steps = RELATIVE_STEP * np.maximum(1.0, np.abs(sums))
    plus, minus = sums + np.diag(steps), sums - np.diag(steps)
    gradient = (base.combine(plus) - base.combine(minus)) / (2 * steps)
    return loadings @ gradient if np.isfinite(gradient).all() else None


@dataclass(frozen=True)
class VarianceSplit:
    """A figure's sampling variance split into the choice of prompts and the judge's noise.

    `total` is the measured variance (the interval's SE squared: one SE throughout), `judge` the judge's part at the
    samples taken, `per_sample` the judge's part with one sample per row, `n` the scored rows, `judge_samples` the
    mean scored samples per row.
    """

    total: float
    judge: float
    per_sample: float
    n: int
    judge_samples: float

    @property
    def judge_part(self) -> float:
        """The judge's part of the measured total: at most the total (an estimate of it above the total, from few
        rows, says the prompts' part is 0, not that the figure varies more than measured)."""
        return min(self.judge, self.total)

    @property
    def prompt(self) -> float:
        """The prompts' part: what the judge's part leaves of the total (never below 0)."""
        return max(self.total - self.judge, 0.0)

    @property
    def judge_share(self) -> float:
        return self.judge_part / self.total if self.total else 0.0

    @property
    def prompt_share(self) -> float:
        return 1.0 - self.judge_share if self.total else 0.0

    def se_with(self, prompts: int | None = None, judge_samples: int | None = None) -> float:
        """The figure's SE with `prompts` scored rows and `judge_samples` samples each (None: as now)."""
        kept = self.judge_part / self.judge if self.judge else 0.0  # the share of the judge's part within the total
        judge = self.judge_part if judge_samples is None else kept * self.per_sample / judge_samples
        scale = 1.0 if prompts is None else self.n / prompts
        return math.sqrt(scale * (self.prompt + judge))

    def to_dict(self) -> dict[str, float | int]:
        return {
            "se": math.sqrt(self.total),
            "prompt_share": self.prompt_share,
            "judge_share": self.judge_share,
            "n": self.n,
            "judge_samples": self.judge_samples,
        }


def split_variance(build: Callable[[np.ndarray], Figure], samples: np.ndarray, se: float) -> VarianceSplit | None:
    """Split a figure's variance (`se`: its bootstrap SE over prompts from the row scores) into prompts and judge.

    `build(row_scores)` builds the figure from row scores (NaN: unscored), e.g.
    `lambda s: affine(stratified_mean(s, tasks), 4, -300)`; `samples` is (rows, K), NaN where a sample is
    unscored. None without a row of two scored samples (the judge's noise is then not measured) or where the
    figure is undefined.
    """
    within, _ = within_row_variance(samples)
    scores, counts = row_scores(samples)
    if within is None:
        return None
    slopes = influence(build, scores)
    if slopes is None:
        return None
    scored = counts > 0
    squared = slopes[scored] ** 2
    return VarianceSplit(
        total=float(se) ** 2,
        judge=within * float((squared / counts[scored]).sum()),
        per_sample=within * float(squared.sum()),
        n=int(np.count_nonzero(scored)),
        judge_samples=float(counts[scored].mean()),
    )
