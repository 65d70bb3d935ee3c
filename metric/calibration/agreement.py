"""How often the judge agrees with people on the same units, and Cohen's kappa (agreement beyond chance)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np

RESAMPLES = 1000


@dataclass(frozen=True)
class Agreement:
    n: int
    agreement: float | None
    kappa: float | None  # None when it is undefined (one label only, on both sides)

    def to_dict(self) -> dict:
        return asdict(self)


def agreement(human: Sequence[str], judge: Sequence[str]) -> Agreement:
    """Labels of the same units, e.g. the outcomes 'A', 'B', 'equally good', 'equally bad'."""
    if len(human) != len(judge):
        raise ValueError(f"human ({len(human)}) and judge ({len(judge)}) must label the same units")
    if not human:
        return Agreement(0, None, None)
    agreed = sum(h == j for h, j in zip(human, judge, strict=True)) / len(human)
    if len(set(human) | set(judge)) < 2:
        return Agreement(len(human), agreed, None)
    labels = sorted(set(human) | set(judge))
    codes = [np.array([labels.index(x) for x in side])[None, :] for side in (human, judge)]
    return Agreement(len(human), agreed, float(resampled_kappas(*codes, len(labels))[0]))


def agreement_intervals(
    human: Sequence[str], judge: Sequence[str], level: float = 0.95, seed: int = 0, resamples: int = RESAMPLES
) -> dict[str, list[float] | None]:
    """Percentile bootstrap intervals (over units, seeded) of the agreement and of Cohen's kappa; None where the
    figure is undefined on the data or on too many resamples (fewer than two units, a single label)."""
    if len(human) != len(judge):
        raise ValueError(f"human ({len(human)}) and judge ({len(judge)}) must label the same units")
    if len(human) < 2:
        return {"agreement": None, "kappa": None}
    labels = sorted(set(human) | set(judge))
    h = np.array([labels.index(x) for x in human])
    j = np.array([labels.index(x) for x in judge])
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, len(h), size=(resamples, len(h)))
    agreed = (h[draws] == j[draws]).mean(axis=1)
    kappas = resampled_kappas(h[draws], j[draws], len(labels))
    tails = [50 * (1 - level), 50 * (1 + level)]
    found: dict[str, list[float] | None] = {"agreement": [float(x) for x in np.percentile(agreed, tails)]}
    usable = kappas[np.isfinite(kappas)]
    enough = len(labels) > 1 and len(usable) >= level * resamples
    found["kappa"] = [float(x) for x in np.percentile(usable, tails)] if enough else None
    return found


def resampled_kappas(human: np.ndarray, judge: np.ndarray, classes: int) -> np.ndarray:
    """Cohen's kappa of each row (a resample) of two label-code matrices; NaN where chance agreement is 1."""
    rows, n = human.shape
    offsets = np.arange(rows)[:, None] * classes
    counts = [
        np.bincount((codes + offsets).ravel(), minlength=rows * classes).reshape(rows, classes)
        for codes in (human, judge)
    ]
    chance = (counts[0] * counts[1]).sum(axis=1) / n**2
    observed = (human == judge).mean(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(chance < 1, (observed - chance) / (1 - chance), np.nan)
