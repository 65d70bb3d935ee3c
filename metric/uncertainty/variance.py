"""A figure's design-based variance: the linearized (delta-method) variance over the sampled units, stratum by stratum.

A figure is `combine(sums)`; its derivative in each unit's weight is `z_i = columns_i . gradient` (the gradient of
`combine` at the data's sums). Within stratum h (its n_h units the figure rests on) the figure's variance is
`n_h / (n_h - 1) * sum_i (z_i - mean z)^2`: the rescaled bootstrap's variance in the limit of infinitely many
resamples (a plain bootstrap gives `(n_h - 1) / n_h` of it, which is why its intervals were too narrow at a few
units per stratum). Degrees of freedom: Welch-Satterthwaite over the strata's parts, at most units - strata.

A stratum holding one unit has no within-stratum spread to measure: its part is unknown (`singletons`), and where
every stratum holds one the figure gets no interval (`reason`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .design import Design
from .figures import Figure

RELATIVE_STEP = 1e-6  # central differences of `combine` in its sums
FLOAT_NOISE = 1e-9  # contributions that vary less than this share of the terms they sum are float noise


def gradient(figure: Figure) -> np.ndarray | None:
    """d combine / d sums at the data's sums, None where the figure or its derivative is undefined."""
    sums = figure.columns.sum(axis=0)
    steps = RELATIVE_STEP * np.maximum(1.0, np.abs(sums))
    plus, minus = sums + np.diag(steps), sums - np.diag(steps)
    found = (figure.combine(plus) - figure.combine(minus)) / (2 * steps)
    return found if np.isfinite(found).all() else None


def linearized(figure: Figure) -> np.ndarray | None:
    """Each unit's linearized contribution z_i (what the figure moves per unit of the unit's weight)."""
    slope = gradient(figure)
    return None if slope is None else figure.columns @ slope


def only_float_noise(figure: Figure, z: np.ndarray, rests: np.ndarray, design: Design) -> bool:
    """Whether the contributions vary, within every stratum, by no more than float noise on the terms they are made
    of: values that are equal but for rounding (50 as sums of 0.5 x weights, 49.999999999999993 for some rows) give
    a variance of 1e-29, not a measured one."""
    slope = gradient(figure)
    if slope is None:
        return False
    terms = np.abs(figure.columns) @ np.abs(slope)
    size = float(terms[rests].max()) if rests.any() else 0.0
    return all(np.ptp(values) <= FLOAT_NOISE * size for values in design.split(z, rests) if len(values))


def rests_on(*figures: Figure) -> np.ndarray:
    """The units any of the figures rests on (those adding anything to its sums)."""
    return np.logical_or.reduce([np.any(figure.columns != 0, axis=1) for figure in figures])


@dataclass(frozen=True)
class Spread:
    """A figure's variance from its strata of two or more units, the parts' degrees of freedom, and the counts;
    `borrowed` the part of the variance estimated elsewhere (for strata of one unit)."""

    variance: float
    df: float
    n: int
    strata: int
    singletons: int
    borrowed: float = 0.0

    @property
    def se(self) -> float:
        return float(np.sqrt(self.variance))


@dataclass(frozen=True)
class Measured:
    """A figure's linearized contributions `z`, the units it rests on, and its spread over them."""

    z: np.ndarray
    rests: np.ndarray
    spread: Spread


def satterthwaite(parts: list[float], dfs: list[float]) -> float:
    """Welch-Satterthwaite degrees of freedom of a sum of independent variance parts."""
    total = sum(parts)
    spread = sum(part**2 / df for part, df in zip(parts, dfs, strict=True) if df > 0)
    return total**2 / spread if spread > 0 else float(sum(dfs))


def stratum_parts(z: np.ndarray, rests: np.ndarray, design: Design) -> tuple[list[float], list[float], int, int]:
    """Per stratum of two or more units its variance part and df; also the strata used and those with one unit."""
    parts, dfs, strata, singletons = [], [], 0, 0
    for values in design.split(z, rests):
        n_h = len(values)
        if n_h == 0:
            continue
        strata += 1
        if n_h == 1:
            singletons += 1
            continue
        parts.append(float(n_h / (n_h - 1) * ((values - values.mean()) ** 2).sum()))
        dfs.append(float(n_h - 1))
    return parts, dfs, strata, singletons


def spread(z: np.ndarray, rests: np.ndarray, design: Design, extra: tuple[float, float] = (0.0, 0.0)) -> Spread:
    """The variance of a figure with contributions `z` over the units in `rests`; `extra` adds a part (variance,
    df) estimated elsewhere (a borrowed variance for the strata of one unit)."""
    design.check_units(len(z), "figure")
    parts, dfs, strata, singletons = stratum_parts(z, rests, design)
    if extra[0] > 0:
        parts, dfs = [*parts, extra[0]], [*dfs, extra[1]]
    variance = float(sum(parts))
    df = min(satterthwaite(parts, dfs), float(sum(dfs))) if parts else 0.0
    return Spread(variance, df, int(rests.sum()), strata, singletons, max(extra[0], 0.0))


def no_spread_reason(found: Spread, design: Design) -> str | None:
    """Why a figure gets no interval, or None where it gets one."""
    unit, stratum = design.unit, design.stratified_by
    if found.n == 0:
        return f"no scored {unit}"
    if found.strata == found.singletons:
        return f"one {unit}{f' per {stratum}' if stratum else ''}: no variance to estimate"
    if found.singletons:
        return (
            f"a {stratum or 'stratum'} with one {unit} among larger ones: its variance is borrowed from the others "
            f"only where the {unit}s' values are known (unit_intervals)"
        )
    if not found.variance > 0:
        return f"the {unit}s' values do not vary: no variance to estimate"
    return None
