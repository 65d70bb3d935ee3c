"""A judge's verdicts against reference (human) labels: agreement, Cohen's kappa and the confusion matrix.

Human A/B test sets such as PandaLM's label three classes: A better, B better, tie. The judge's four outcomes are
compared on those three: "equally good" and "equally bad" are both a tie.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass

from ..uncertainty.label_agreement import kappa as label_kappa
from ..unscored import Unscored
from .outcomes import Outcome, as_outcome

TIE = "tie"
THREE_WAY = ("A", "B", TIE)


def three_way(label: Outcome | str) -> str:
    """ "A", "B" or "tie" for an outcome or a label ("tie" itself, or any label `as_outcome` reads)."""
    if label == TIE:
        return TIE
    outcome = as_outcome(label)
    return outcome.value if outcome in (Outcome.A, Outcome.B) else TIE


@dataclass(frozen=True)
class Agreement:
    """`n` items had a reference label and a scored verdict; `confusion[i][j]` counts reference `labels[i]` judged
    `labels[j]`."""

    n: int
    n_unscored: int
    n_no_reference: int
    agreement: float | None
    cohen_kappa: float | None
    labels: tuple[str, ...]
    confusion: list[list[int]]


def judge_agreement(
    verdicts: Mapping[Hashable, Outcome | Unscored], references: Mapping[Hashable, Outcome | str | None]
) -> Agreement:
    """Agreement of `verdicts` with `references` over the reference items (None: no reference label, e.g. no
    human majority); an item without a verdict, or with an unscored one, is counted as unscored."""
    judged, expected, unscored, missing = [], [], 0, 0
    for item, reference in references.items():
        if reference is None:
            missing += 1
            continue
        verdict = verdicts.get(item)
        if verdict is None or isinstance(verdict, Unscored):
            unscored += 1
            continue
        judged.append(three_way(verdict))
        expected.append(three_way(reference))
    agree = sum(a == b for a, b in zip(judged, expected, strict=True))
    return Agreement(
        n=len(judged),
        n_unscored=unscored,
        n_no_reference=missing,
        agreement=agree / len(judged) if judged else None,
        cohen_kappa=kappa(judged, expected),
        labels=THREE_WAY,
        confusion=confusion(expected, judged),
    )


def kappa(judged: list[str], expected: list[str]) -> float | None:
    """Cohen's kappa (the package's one implementation, `uncertainty.label_agreement`); None when it is undefined
    (no items, or a single label on both sides)."""
    return label_kappa(expected, judged)


def confusion(expected: list[str], judged: list[str]) -> list[list[int]]:
    """Counts of reference `THREE_WAY[i]` judged `THREE_WAY[j]`."""
    found = [[0] * len(THREE_WAY) for _ in THREE_WAY]
    for reference, verdict in zip(expected, judged, strict=True):
        found[THREE_WAY.index(reference)][THREE_WAY.index(verdict)] += 1
    return found
