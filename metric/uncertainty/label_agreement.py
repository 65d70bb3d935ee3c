"""Agreement of two labelings of the same units and Cohen's kappa, each with its interval: the one implementation
that `judge-agreement` (three classes), `calibrate` and the Space (the four outcomes) use.

- agreement: the share of units labelled alike, with Wilson's score interval (`bounded.share_interval`), in [0, 1];
- Cohen's kappa: (observed - chance) / (1 - chance), chance = sum over labels of the two sides' shares multiplied;
  its SE is the seeded bootstrap's over units (`statistic_interval`: rescaled by sqrt(n / (n - 1)), a t quantile at
  n - 1 df), the bounds cut to [-1, 1] (see `bounded` for why not a transformation).

Where a figure has no interval, `reasons` says why, in words a reader can act on: one unit, a single label on both
sides (kappa undefined), no spread over the resamples, kappa undefined on too many of them.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

import numpy as np

from .bounded import CORRELATION_SCALE, share_interval
from .design import Design
from .intervals import DEFAULT_LEVEL, DEFAULT_ROUNDS, DEFAULT_SEED, Interval, statistic_interval

CHANCE_IS_ONE = 1 - 1e-12  # chance agreement at or above this is 1: a single label on both sides


@dataclass(frozen=True)
class LabelAgreement:
    """`n` units; `agreement` and `kappa` (None where undefined) with their intervals (None: `reasons[name]`)."""

    n: int
    agreement: float | None
    kappa: float | None
    agreement_interval: Interval | None
    kappa_interval: Interval | None
    reasons: dict[str, str] = field(default_factory=dict)


def label_codes(first: Sequence[Hashable], second: Sequence[Hashable]) -> tuple[np.ndarray, np.ndarray, int]:
    """Both labelings as codes into their labels' union (sorted by text), and how many labels there are."""
    if len(first) != len(second):
        raise ValueError(f"the two labelings must label the same units ({len(first)} and {len(second)} labels)")
    labels = {label: code for code, label in enumerate(sorted(set(first) | set(second), key=str))}
    return (
        np.array([labels[x] for x in first], dtype=np.int64),
        np.array([labels[x] for x in second], dtype=np.int64),
        len(labels),
    )


def weighted_kappa(first: np.ndarray, second: np.ndarray, classes: int, counts: np.ndarray | None = None) -> float:
    """Cohen's kappa of two code vectors, each unit counted `counts` times (once where None); NaN where chance
    agreement is 1 (a single label on both sides) or no unit counts."""
    weights = np.ones(len(first)) if counts is None else counts
    confusion = np.bincount(first * classes + second, weights=weights, minlength=classes * classes)
    confusion = confusion.reshape(classes, classes)
    total = confusion.sum()
    if total <= 0:
        return float("nan")
    observed = np.trace(confusion) / total
    chance = float(confusion.sum(axis=1) @ confusion.sum(axis=0)) / total**2
    return float("nan") if chance >= CHANCE_IS_ONE else float((observed - chance) / (1 - chance))


def kappa(first: Sequence[Hashable], second: Sequence[Hashable]) -> float | None:
    """Cohen's kappa of two labelings of the same units; None where undefined (no unit, one label on both sides)."""
    a, b, classes = label_codes(first, second)
    value = weighted_kappa(a, b, classes) if len(a) else float("nan")
    return value if np.isfinite(value) else None


def label_agreement(
    first: Sequence[Hashable],
    second: Sequence[Hashable],
    unit: str = "item",
    level: float = DEFAULT_LEVEL,
    rounds: int = DEFAULT_ROUNDS,
    seed: int = DEFAULT_SEED,
) -> LabelAgreement:
    """Agreement and Cohen's kappa of `first` and `second` (labels of the same units, any hashable labels)."""
    a, b, classes = label_codes(first, second)
    n = len(a)
    if n == 0:
        return LabelAgreement(0, None, None, None, None, {"agreement": f"no {unit}", "kappa": f"no {unit}"})
    matches = (a == b).astype(float)
    reasons: dict[str, str] = {}
    agreed = share_interval(matches, level)
    if agreed is None:
        reasons["agreement"] = f"one {unit}: no interval"
    value = weighted_kappa(a, b, classes)
    if not np.isfinite(value):
        reasons["kappa"] = "a single label on both sides: kappa is undefined (chance agreement is 1)"
        return LabelAgreement(n, float(matches.mean()), None, agreed, None, reasons)
    spread, why = kappa_interval(a, b, classes, unit, level, rounds, seed)
    if why is not None:
        reasons["kappa"] = why
    return LabelAgreement(n, float(matches.mean()), value, agreed, spread, reasons)


def kappa_interval(
    a: np.ndarray, b: np.ndarray, classes: int, unit: str, level: float, rounds: int, seed: int
) -> tuple[Interval | None, str | None]:
    """Kappa's interval in [-1, 1] and, where it has none, why."""
    if len(a) < 2:
        return None, f"one {unit}: no interval"
    found = statistic_interval(
        lambda counts: weighted_kappa(a, b, classes, counts),
        Design.simple(len(a), unit=unit),
        rounds,
        seed,
        level,
        CORRELATION_SCALE,
    )
    if found is None:
        return None, f"kappa does not vary over resamples of the {unit}s: no spread to estimate"
    if found.dropped > (1 - level) / 2 * (found.rounds + found.dropped):
        return None, f"kappa is undefined on {found.dropped} of {found.rounds + found.dropped} resamples (one label)"
    return found, None


__all__ = ["LabelAgreement", "kappa", "label_agreement", "label_codes", "weighted_kappa"]
