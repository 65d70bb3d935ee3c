"""Seeded bootstrap resamples as count matrices, a chunk of rounds at a time, and figures evaluated on them."""

from __future__ import annotations

import numbers
from collections.abc import Iterator, Sequence

import numpy as np

from .design import Design
from .figures import Figure

CHUNK_ENTRIES = 1 << 21  # resample counts held at once: 2 M float64 entries, 16 MB
INT32_LIMIT = np.iinfo(np.int32).max


def check_rounds_and_seed(rounds: object, seed: object) -> None:
    """Raise a ValueError naming the argument unless rounds is an integer >= 2 and seed an integer >= 0."""
    for name, value, minimum in (("rounds", rounds, 2), ("seed", seed, 0)):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral) or value < minimum:
            raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")


def resample_counts(design: Design, rounds: int, rng: np.random.Generator) -> Iterator[np.ndarray]:
    """Bootstrap resamples as counts, (chunk, units) float64 arrays with the units in `design.order`.

    Each row draws, within every stratum, as many units as the stratum holds (with replacement), so every
    stratum keeps its size; a count says how often the unit was drawn.
    """
    n = design.n_units
    chunk = max(1, CHUNK_ENTRIES // n)
    slices = design.slices
    for start in range(0, rounds, chunk):
        size = min(chunk, rounds - start)
        counts = np.empty((size, n))
        for low, high in slices:
            width = high - low
            dtype = np.int32 if size * width <= INT32_LIMIT else np.int64
            draws = rng.integers(0, width, size=(size, width), dtype=dtype)
            draws += (np.arange(size, dtype=dtype) * width)[:, None]
            counts[:, low:high] = np.bincount(draws.ravel(), minlength=size * width).reshape(size, width)
        yield counts


def unit_counts(design: Design, rounds: int, rng: np.random.Generator) -> Iterator[np.ndarray]:
    """`resample_counts` with the units back in the design's own order: (chunk, units), one resample a row."""
    order = design.order
    for counts in resample_counts(design, rounds, rng):
        in_unit_order = np.empty_like(counts)
        in_unit_order[:, order] = counts
        yield in_unit_order


def column_sums(columns: np.ndarray, design: Design, rounds: int, rng: np.random.Generator) -> np.ndarray:
    """(rounds, c): each resample's sums of the per-unit columns (units, c)."""
    design.check_units(columns.shape[0], "figure")
    ordered = np.ascontiguousarray(columns[design.order])
    sums = np.empty((rounds, columns.shape[1]))
    start = 0
    for counts in resample_counts(design, rounds, rng):
        sums[start : start + len(counts)] = counts @ ordered
        start += len(counts)
    return sums


def replicates(
    figures: Sequence[Figure], design: Design, rounds: int, seed: int, names: Sequence[str] | None = None
) -> np.ndarray:
    """(rounds, figures): every figure on the same seeded resamples, NaN where a figure is undefined.

    The same design, rounds and seed give the same resamples, whichever figures are evaluated on them. `names`
    name the figures in errors.
    """
    check_rounds_and_seed(rounds, seed)
    return replicates_from(figures, design, rounds, np.random.default_rng(seed), names)


def replicates_from(
    figures: Sequence[Figure],
    design: Design,
    rounds: int,
    rng: np.random.Generator,
    names: Sequence[str] | None = None,
) -> np.ndarray:
    for position, figure in enumerate(figures):
        design.check_units(figure.n_units, f"figure {names[position]!r}" if names else f"figure {position}")
    sums = column_sums(np.hstack([figure.columns for figure in figures]), design, rounds, rng)
    bounds = np.cumsum([0] + [figure.columns.shape[1] for figure in figures])
    return np.column_stack(
        [figure.combine(sums[:, a:b]) for figure, a, b in zip(figures, bounds[:-1], bounds[1:], strict=True)]
    )
