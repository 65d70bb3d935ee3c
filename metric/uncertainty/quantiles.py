"""Student's t quantiles and tail chances (normal where df is None or infinite), from scipy.special: scipy.stats'
t.ppf and t.cdf without importing scipy.stats."""

from __future__ import annotations

import math

from scipy.special import ndtr, ndtri, stdtr, stdtrit


def t_quantile(share: float, df: float | None) -> float:
    """The value below which Student's t at `df` degrees of freedom falls with chance `share`."""
    return float(ndtri(share) if df is None or not math.isfinite(df) else stdtrit(max(df, 1.0), share))


def t_cdf(value: float, df: float | None) -> float:
    """The chance that Student's t at `df` degrees of freedom falls below `value`."""
    return float(ndtr(value) if df is None or not math.isfinite(df) else stdtr(max(df, 1.0), value))


def quantile(level: float, df: float | None) -> float:
    """The two-sided quantile at `level`."""
    return t_quantile((1 + level) / 2, df)
