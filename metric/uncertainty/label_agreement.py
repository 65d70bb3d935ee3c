"""Agreement of two labelings of the same units and Cohen's kappa, each with its interval, on an explicit label set:
the one `Agreement` that `judge-agreement` (3 labels: A, B, tie), `calibrate`, the `pairwise` metric and the Space
(4 labels: the four outcomes) make, through `metric.pairwise.agreement`.

- agreement: the share of units labelled alike, with Wilson's score interval (`bounded.share_interval`), in [0, 1];
  one-sided at n of n and 0 of n;
- Cohen's kappa: (observed - chance) / (1 - chance), chance = sum over labels of the two sides' shares multiplied;
  its SE is the seeded bootstrap's over units (`statistic_interval`: RESAMPLES resamples, rescaled by
  sqrt(n / (n - 1)), a t quantile at n - 1 df), the bounds cut to [-1, 1] (see `bounded` for why not a
  transformation).

The label set is part of the figure: the same votes give another agreement and kappa on 3 labels (equally good and
equally bad one tie) than on 4, so every printed agreement names its set (`Agreement.label_set`). Where a figure has
no interval, `reasons` says why, in words a reader can act on: one unit, every label the same on both sides (then
agreement is forced and kappa undefined), no spread over the resamples, kappa undefined on too many of them.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from longform_eval.common.plurals import counted

from .bounded import CORRELATION_SCALE, share_interval
from .design import Design
from .intervals import DEFAULT_LEVEL, DEFAULT_ROUNDS, DEFAULT_SEED, Interval
from .statistic_interval import statistic_interval

CHANCE_IS_ONE = 1 - 1e-12  # chance agreement at or above this is 1: a single label on both sides
RESAMPLES = DEFAULT_ROUNDS  # the one resample count of every kappa interval
FIGURES = ("agreement", "cohen_kappa")


@dataclass(frozen=True)
class Agreement:
    """Two labelings of the same `n` units on the label set `labels`: `confusion[i][j]` counts the units the
    reference labelled `labels[i]` and the other side `labels[j]`; `agreement` and `cohen_kappa` (None where
    undefined) with their intervals (None: `reasons[figure]` says why), kappa's from `resamples` seeded resamples.
    `n_unscored` and `n_no_reference` count the units left out (no verdict; no reference label)."""

    labels: tuple[str, ...]
    n: int
    agreement: float | None
    cohen_kappa: float | None
    agreement_interval: Interval | None
    kappa_interval: Interval | None
    confusion: tuple[tuple[int, ...], ...]
    reasons: dict[str, str] = field(default_factory=dict)
    resamples: int = RESAMPLES
    seed: int = DEFAULT_SEED
    n_unscored: int = 0
    n_no_reference: int = 0

    @property
    def label_set(self) -> str:
        """The label set in words, printed beside every agreement and kappa: `4 labels: A, B, ...`."""
        return f"{counted(len(self.labels), 'label')}: {', '.join(self.labels)}"

    def to_dict(self) -> dict[str, Any]:
        """The results-file form (agreement.json, calibrated.json): the figures, {"intervals": {"agreement",
        "cohen_kappa"}} as scores.json keeps them and, where one has none, "interval_notes" saying why."""
        spans = (self.agreement_interval, self.kappa_interval)
        intervals = {
            name: None if found is None else found.to_dict() for name, found in zip(FIGURES, spans, strict=True)
        }
        return {
            "labels": list(self.labels),
            "label_set": self.label_set,
            "n": self.n,
            "n_unscored": self.n_unscored,
            "n_no_reference": self.n_no_reference,
            "agreement": self.agreement,
            "cohen_kappa": self.cohen_kappa,
            "confusion": [list(row) for row in self.confusion],
            "resamples": self.resamples,
            "seed": self.seed,
            "intervals": intervals,
        } | ({"interval_notes": dict(self.reasons)} if self.reasons else {})


def label_codes(values: Sequence[Hashable], labels: Sequence[Hashable], side: str) -> np.ndarray:
    """Each value's index in `labels`; a ValueError naming the side and the value for one outside the set."""
    index = {label: code for code, label in enumerate(labels)}
    unknown = next((value for value in values if value not in index), None)
    if unknown is not None:
        raise ValueError(f"{side}: label {unknown!r} is not in the label set {tuple(labels)}")
    return np.array([index[value] for value in values], dtype=np.int64)


def weighted_kappa(first: np.ndarray, second: np.ndarray, classes: int, counts: np.ndarray | None = None) -> float:
    """Cohen's kappa of two code vectors, each unit counted `counts` times (once where None); NaN where chance
    agreement is 1 (a single label on both sides) or no unit counts."""
    confusion = confusion_counts(first, second, classes, counts)
    total = confusion.sum()
    if total <= 0:
        return float("nan")
    observed = np.trace(confusion) / total
    chance = float(confusion.sum(axis=1) @ confusion.sum(axis=0)) / total**2
    return float("nan") if chance >= CHANCE_IS_ONE else float((observed - chance) / (1 - chance))


def confusion_counts(
    first: np.ndarray, second: np.ndarray, classes: int, counts: np.ndarray | None = None
) -> np.ndarray:
    """(classes, classes): units with code i on the first side and j on the second (weighted by `counts`)."""
    weights = np.ones(len(first)) if counts is None else counts
    found = np.bincount(first * classes + second, weights=weights, minlength=classes * classes)
    return found.reshape(classes, classes)


def label_agreement(
    reference: Sequence[Hashable],
    judged: Sequence[Hashable],
    labels: Sequence[str],
    unit: str = "item",
    level: float = DEFAULT_LEVEL,
    seed: int = DEFAULT_SEED,
) -> Agreement:
    """Agreement and Cohen's kappa of `judged` with `reference` (labels of the same units, each in `labels`)."""
    if len(reference) != len(judged):
        raise ValueError(
            f"the two labelings must label the same units ({len(reference)} and {counted(len(judged), 'label')})"
        )
    a, b = label_codes(reference, labels, "reference"), label_codes(judged, labels, "judged")
    classes, n = len(labels), len(a)
    table = tuple(tuple(int(x) for x in row) for row in confusion_counts(a, b, classes))
    common = {"labels": tuple(labels), "n": n, "confusion": table, "seed": seed}
    if n == 0:
        return made(common, None, None, (None, None), dict.fromkeys(FIGURES, f"no {unit}"))
    matches = (a == b).astype(float)
    point, value = float(matches.mean()), weighted_kappa(a, b, classes)
    if not np.isfinite(value):
        return made(common, point, None, (None, None), one_label(labels[int(a[0])], n, unit))
    agreed = share_interval(matches, level)
    spread, why = kappa_interval(a, b, classes, unit, level, seed)
    reasons = {"agreement": f"one {unit}: no interval"} if agreed is None else {}
    return made(common, point, value, (agreed, spread), reasons | ({"cohen_kappa": why} if why else {}))


def made(
    common: dict[str, Any],
    point: float | None,
    kappa: float | None,
    spans: tuple[Interval | None, Interval | None],
    reasons: dict[str, str],
) -> Agreement:
    return Agreement(
        **common,
        agreement=point,
        cohen_kappa=kappa,
        agreement_interval=spans[0],
        kappa_interval=spans[1],
        reasons=reasons,
    )


def one_label(label: str, n: int, unit: str) -> dict[str, str]:
    """Why neither figure has an interval where every label on both sides is `label`."""
    if n < 2:
        return {"agreement": f"one {unit}: no interval", "cohen_kappa": f"one {unit}: kappa is undefined"}
    return {
        "agreement": f"every label on both sides is {label!r} ({n} {unit}s): the two cannot disagree, so the agreement "
        "says nothing of how they tell labels apart; no interval",
        "cohen_kappa": f"every label on both sides is {label!r}: kappa is undefined (chance agreement is 1)",
    }


def kappa_interval(
    a: np.ndarray, b: np.ndarray, classes: int, unit: str, level: float, seed: int
) -> tuple[Interval | None, str | None]:
    """Kappa's interval in [-1, 1] and, where it has none, why."""
    if len(a) < 2:
        return None, f"one {unit}: no interval"
    found = statistic_interval(
        lambda counts: weighted_kappa(a, b, classes, counts),
        Design.simple(len(a), unit=unit),
        RESAMPLES,
        seed,
        level,
        CORRELATION_SCALE,
    )
    if found is None:
        return None, f"kappa does not vary over resamples of the {unit}s: no spread to estimate"
    if found.dropped > (1 - level) / 2 * (found.rounds + found.dropped):
        return None, f"kappa is undefined on {found.dropped} of {found.rounds + found.dropped} resamples (one label)"
    return found, None


__all__ = ["FIGURES", "RESAMPLES", "Agreement", "confusion_counts", "label_agreement", "weighted_kappa"]
