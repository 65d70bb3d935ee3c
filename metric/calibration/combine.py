"""Figures made of several means: a stratified mean (HelloEval's overall, a mean of task means) and its rescaling.

Strata are independent samples, so the variance of a mean of stratum estimates is the sum of their variances over
the number of strata squared; `scale` and `offset` turn the mean into the figure's scale (HelloEval: (m - 75) * 4).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .ppi import DEFAULT_LEVEL, Estimate, normal_bounds


def combined(
    parts: Sequence[Estimate], method: str, level: float = DEFAULT_LEVEL, scale: float = 1.0, offset: float = 0.0
) -> Estimate:
    """`scale * mean(estimates of parts) + offset`, with its normal interval; `lam` is left out (one per part)."""
    if not parts:
        raise ValueError(f"{method}: no strata")
    estimate = scale * float(np.mean([part.estimate for part in parts])) + offset
    se = abs(scale) * float(np.sqrt(sum(part.se**2 for part in parts))) / len(parts)
    low, high = normal_bounds(estimate, se, level)
    n_human, n_judge = sum(p.n_human for p in parts), sum(p.n_judge for p in parts)
    return Estimate(method, estimate, low, high, se, n_human, n_judge)


def rescaled(part: Estimate, scale: float = 1.0, offset: float = 0.0) -> Estimate:
    """The same estimate on another scale (`scale * x + offset`), its interval and se with it."""
    low, high = sorted((scale * part.low + offset, scale * part.high + offset))
    return Estimate(
        part.method,
        scale * part.estimate + offset,
        low,
        high,
        abs(scale) * part.se,
        part.n_human,
        part.n_judge,
        part.lam,
    )


__all__ = ["combined", "rescaled"]
