"""How often the judge agrees with people on the same units, and Cohen's kappa (agreement beyond chance)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

from sklearn.metrics import cohen_kappa_score


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
    return Agreement(len(human), agreed, float(cohen_kappa_score(list(human), list(judge))))
