"""How often the judge agrees with people on the same units, and Cohen's kappa (agreement beyond chance).

The figures and their intervals are the package's one implementation (`uncertainty.label_agreement`), the one
`judge-agreement` uses: Wilson's score interval for the agreement, kappa's bootstrap SE with a t quantile, cut to
[-1, 1].
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

from ..uncertainty.label_agreement import LabelAgreement, kappa, label_agreement

RESAMPLES = 2000


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
    return Agreement(len(human), agreed, kappa(human, judge))


def agreement_figures(
    human: Sequence[str],
    judge: Sequence[str],
    level: float = 0.95,
    seed: int = 0,
    resamples: int = RESAMPLES,
    unit: str = "label",
) -> LabelAgreement:
    """The agreement and kappa of these labels with their intervals and, where one has none, why (`unit`: what a
    label is, in the reasons)."""
    return label_agreement(human, judge, unit=unit, level=level, rounds=resamples, seed=seed)


def agreement_intervals(
    human: Sequence[str], judge: Sequence[str], level: float = 0.95, seed: int = 0, resamples: int = RESAMPLES
) -> dict[str, list[float] | None | dict[str, str]]:
    """The intervals of the agreement and of Cohen's kappa as [low, high] (None: "notes" says why)."""
    found = agreement_figures(human, judge, level, seed, resamples)
    spans = {
        name: None if spread is None else [spread.low, spread.high]
        for name, spread in (("agreement", found.agreement_interval), ("kappa", found.kappa_interval))
    }
    return spans | ({"notes": found.reasons} if found.reasons else {})


__all__ = ["Agreement", "agreement", "agreement_figures", "agreement_intervals"]
