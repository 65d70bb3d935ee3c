"""Figures as functions of per-unit sums, so that one matrix product evaluates them on every resample.

A bootstrap resample is a vector of counts w (how often each unit was drawn); a figure on it is
`combine(w @ columns)`: `columns` holds what each unit adds to the figure's sums (a score and a 1 for a mean,
a numerator and a denominator for a pooled ratio), `combine` turns the sums into the figure. The figure on the
data itself is `combine(ones @ columns)`. Means, means of stratum means, pooled ratios and their sums and
products are all of this form; `compose` builds any smooth function of them.

Per-unit values are NaN where the unit is unscored (or pass `scored`); an unscored unit adds nothing. A
resample on which the figure is undefined (a stratum, or the whole figure, with no scored unit) gives NaN.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from longform_eval.common.plurals import counted

from .design import codes_of

Bounds = tuple[float, float] | None  # the attainable range of a figure (None: not known)

Combine = Callable[[np.ndarray], np.ndarray]
ArrayLike = np.ndarray | Sequence[float]


@dataclass(frozen=True, eq=False)
class Figure:
    """A figure: `combine((rounds, c) sums) -> (rounds,)` of the per-unit `columns` (units, c), NaN if undefined.

    `values`: each unit's value on the figure's own scale (NaN where unscored) where the figure is a mean of them, plain
    or over strata (`mean`, `stratified_mean`, `affine` of one); None where it is not (a ratio, a product, a
    difference). An interval counts the units at an end of the figure's scale from them (`intervals.unseen_reach`)."""

    columns: np.ndarray
    combine: Combine
    values: np.ndarray | None = None

    @property
    def n_units(self) -> int:
        return self.columns.shape[0]

    @property
    def n(self) -> int:
        """The units the figure rests on: those that add anything to its sums (the scored ones)."""
        return int(np.count_nonzero(np.any(self.columns != 0, axis=1)))

    def point(self) -> float | None:
        """The figure on the data itself (every unit once), None where it is undefined."""
        value = float(self.combine(self.columns.sum(axis=0)[None, :])[0])
        return value if np.isfinite(value) else None


def divide(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """numerator / denominator, NaN where the denominator is 0."""
    out = np.full(np.broadcast(numerator, denominator).shape, np.nan)
    return np.divide(numerator, denominator, out=out, where=denominator != 0)


def scored_values(values: ArrayLike, scored: ArrayLike | None, what: str = "values") -> tuple[np.ndarray, np.ndarray]:
    """Values (0 where unscored) and the scored mask: finite values unless `scored` says which units count."""
    array = np.asarray(values, dtype=float)
    if array.ndim != 1:
        raise ValueError(f"{what}: expected one value per unit, got an array of shape {array.shape}")
    finite = np.isfinite(array)
    if scored is None:
        mask = finite
    else:
        mask = np.asarray(scored, dtype=bool)
        if mask.shape != array.shape:
            raise ValueError(f"scored: {mask.size} flags for {array.size} {what}")
        bad = np.flatnonzero(mask & ~finite)
        if len(bad):
            raise ValueError(f"{what}[{bad[0]}]: {array[bad[0]]} is not a finite number at a scored unit")
    return np.where(mask, array, 0.0), mask


def mean(values: ArrayLike, scored: ArrayLike | None = None) -> Figure:
    """The mean of the scored units' values."""
    x, mask = scored_values(values, scored)
    columns = np.column_stack([x, mask.astype(float)])
    return Figure(columns, lambda sums: divide(sums[:, 0], sums[:, 1]), np.where(mask, x, np.nan))


def stratified_mean(values: ArrayLike, strata: Sequence[Hashable], scored: ArrayLike | None = None) -> Figure:
    """The plain mean of the stratum means (HelloBench: of the task means), over strata with a scored unit.

    A stratum without any scored unit is left out, as the scorers leave it out; a resample in which a kept
    stratum has no scored unit gives NaN.
    """
    x, mask = scored_values(values, scored)
    codes, _ = codes_of(strata)
    if len(codes) != len(x):
        raise ValueError(f"strata: {counted(len(codes), 'label')} for {counted(len(x), 'value')}")
    kept = np.unique(codes[mask])
    member = (codes[:, None] == kept[None, :]) & mask[:, None]
    columns = np.hstack([np.where(member, x[:, None], 0.0), member.astype(float)])
    k = len(kept)

    def combine(sums: np.ndarray) -> np.ndarray:
        if not k:
            return np.full(len(sums), np.nan)
        return divide(sums[:, :k], sums[:, k:]).mean(axis=1)

    return Figure(columns, combine, np.where(mask, x, np.nan))


def ratio(numerator: ArrayLike, denominator: ArrayLike) -> Figure:
    """A pooled ratio, sum(numerator) / sum(denominator) over the units (e.g. yes checks / judged checks per item)."""
    top = np.asarray(numerator, dtype=float)
    bottom = np.asarray(denominator, dtype=float)
    if top.shape != bottom.shape or top.ndim != 1:
        raise ValueError(f"ratio: numerator {top.shape} and denominator {bottom.shape} must be two equal 1-D arrays")
    for what, array in (("numerator", top), ("denominator", bottom)):
        bad = np.flatnonzero(~np.isfinite(array))
        if len(bad):
            raise ValueError(f"{what}[{bad[0]}]: {array[bad[0]]} is not a finite number")
    return Figure(np.column_stack([top, bottom]), lambda sums: divide(sums[:, 0], sums[:, 1]))


def compose(function: Callable[..., np.ndarray], *parts: Figure) -> Figure:
    """A smooth function of figures on the same units: `function(part_1_values, part_2_values, ...)`."""
    if not parts:
        raise ValueError("compose: no figures given")
    units = {part.n_units for part in parts}
    if len(units) != 1:
        raise ValueError(f"compose: the figures rest on different numbers of units {sorted(units)}")
    bounds = np.cumsum([0] + [part.columns.shape[1] for part in parts])

    def combine(sums: np.ndarray) -> np.ndarray:
        values = [part.combine(sums[:, a:b]) for part, a, b in zip(parts, bounds[:-1], bounds[1:], strict=True)]
        return np.asarray(function(*values), dtype=float)

    return Figure(np.hstack([part.columns for part in parts]), combine)


def affine(figure: Figure, scale: float = 1.0, offset: float = 0.0) -> Figure:
    """scale * figure + offset (HelloBench's task score: mean row score * 4 - 300)."""
    found = compose(lambda values: scale * values + offset, figure)
    return found if figure.values is None else replace(found, values=scale * figure.values + offset)


def weighted_sum(parts: Sequence[Figure], weights: Sequence[float]) -> Figure:
    """sum of weight * figure (LongBench-Write: S = 0.5 S_l + 0.5 S_q)."""
    if len(parts) != len(weights):
        raise ValueError(f"weighted_sum: {counted(len(weights), 'weight')} for {counted(len(parts), 'figure')}")
    return compose(lambda *values: sum(w * v for w, v in zip(weights, values, strict=True)), *parts)


def product(a: Figure, b: Figure, scale: float = 1.0) -> Figure:
    """scale * a * b (LongGenBench: wAvg = CR * STIC-2 / 100)."""
    return compose(lambda x, y: scale * x * y, a, b)
