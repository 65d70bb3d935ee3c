"""Figures made of several means: a stratified mean (HelloEval's overall, a mean of task means) and its rescaling.

Strata are independent samples, so the variance of a mean of stratum estimates is the sum of their variances over
the number of strata squared; `scale` and `offset` turn the mean into the figure's scale (HelloEval: (m - 75) * 4).
A stratum without an interval (its labels show no spread) leaves the figure without one: its zero variance would
be taken for a measured one. `bounded` cuts an interval to the figure's attainable range.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from .ppi import DEFAULT_LEVEL, Estimate, with_bounds


def combined(
    parts: Sequence[Estimate],
    method: str,
    level: float = DEFAULT_LEVEL,
    scale: float = 1.0,
    offset: float = 0.0,
    names: Sequence[str] | None = None,
) -> Estimate:
    """`scale * mean(estimates of parts) + offset`, with its normal interval; `lam` is left out (one per part).
    `names`: the strata's, to say which one has no interval."""
    if not parts:
        raise ValueError(f"{method}: no strata")
    estimate = scale * float(np.mean([part.estimate for part in parts])) + offset
    se = abs(scale) * float(np.sqrt(sum(part.se**2 for part in parts))) / len(parts)
    counts = sum(p.n_human for p in parts), sum(p.n_judge for p in parts)
    labels = list(names) if names is not None else [str(k) for k in range(len(parts))]
    why = next((f"{name}: {p.reason}" for name, p in zip(labels, parts, strict=True) if p.reason), None)
    return with_bounds(method, estimate, se, level, counts, None, why)


def rescaled(part: Estimate, scale: float = 1.0, offset: float = 0.0) -> Estimate:
    """The same estimate on another scale (`scale * x + offset`), its interval and se with it."""
    bounds = (None, None)
    if part.low is not None and part.high is not None:
        bounds = tuple(sorted((scale * part.low + offset, scale * part.high + offset)))
    return replace(
        part, estimate=scale * part.estimate + offset, low=bounds[0], high=bounds[1], se=abs(scale) * part.se
    )


def bounded(part: Estimate, lowest: float, highest: float) -> Estimate:
    """The estimate with its interval cut to [lowest, highest] (the figure's attainable range)."""
    if part.low is None or part.high is None:
        return part
    return replace(part, low=max(part.low, lowest), high=min(part.high, highest))


__all__ = ["bounded", "combined", "rescaled"]
