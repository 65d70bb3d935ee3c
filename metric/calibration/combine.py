"""Figures made of several means: a stratified mean (HelloEval's overall, a mean of task means) and its rescaling.

Strata are independent samples, so the variance of a mean of stratum estimates is the sum of their variances over
the number of strata squared; `scale` and `offset` turn the mean into the figure's scale (HelloEval: (m - 75) * 4).
A stratum without an interval (its labels show no spread) leaves the figure without one: its zero variance would
be taken for a measured one. The t quantile takes the parts' Welch-Satterthwaite degrees of freedom; `bounds` (the
figure's attainable range) cuts the estimate and its interval to it together (`estimate.on_scale`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from ..uncertainty.variance import satterthwaite
from .estimate import DEFAULT_LEVEL, Estimate, Scale, on_scale, with_bounds


def combined(
    parts: Sequence[Estimate],
    method: str,
    level: float = DEFAULT_LEVEL,
    scale: float = 1.0,
    offset: float = 0.0,
    names: Sequence[str] | None = None,
    bounds: Scale | None = None,
) -> Estimate:
    """`scale * mean(estimates of parts) + offset`, with its t interval; `lam` is left out (one per part). `names`:
    the strata's, to say which one has no interval; `bounds`: the figure's range, which it is cut to."""
    if not parts:
        raise ValueError(f"{method}: no strata")
    estimate = scale * float(np.mean([part.estimate for part in parts])) + offset
    se = abs(scale) * float(np.sqrt(sum(part.se**2 for part in parts))) / len(parts)
    counts = sum(p.n_human for p in parts), sum(p.n_judge for p in parts)
    labels = list(names) if names is not None else [str(k) for k in range(len(parts))]
    why = next((f"{name}: {p.reason}" for name, p in zip(labels, parts, strict=True) if p.reason), None)
    df = satterthwaite([p.se**2 for p in parts], [float("inf") if p.df is None else p.df for p in parts])
    return on_scale(with_bounds(method, estimate, se, level, counts, None, why, df), bounds, level)


def rescaled(part: Estimate, scale: float = 1.0, offset: float = 0.0) -> Estimate:
    """The same estimate on another scale (`scale * x + offset`), its interval and se with it."""
    bounds = (None, None)
    if part.low is not None and part.high is not None:
        bounds = tuple(sorted((scale * part.low + offset, scale * part.high + offset)))
    return replace(
        part, estimate=scale * part.estimate + offset, low=bounds[0], high=bounds[1], se=abs(scale) * part.se
    )


__all__ = ["combined", "rescaled"]
