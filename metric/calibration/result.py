"""One headline figure three ways: the judge's alone, the humans' alone, and prediction-powered (PPI++)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from longform_eval.common.plurals import counted

from ..uncertainty.label_agreement import Agreement
from .estimate import Estimate

MIN_MATCHED = 2  # human labels matched to judged units below which no human-only or calibrated figure is made


@dataclass(frozen=True)
class Calibrated:
    """`ppi` (and `human_only`) None with `absent` saying why: too few human labels, no unit left to the judge alone.

    `agreement`: judge vs humans on the matched units (categorical figures, on the label set it names); `notes` say
    how the figures were made.
    """

    figure: str
    judge_only: Estimate
    human_only: Estimate | None
    ppi: Estimate | None
    n_human: int
    n_judge: int
    absent: str | None = None
    agreement: Agreement | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        def plain(estimate: Estimate | None) -> dict[str, Any] | None:
            return None if estimate is None else estimate.to_dict()

        return {
            "figure": self.figure,
            "judge_only": plain(self.judge_only),
            "human_only": plain(self.human_only),
            "ppi": plain(self.ppi),
            "n_human": self.n_human,
            "n_judge": self.n_judge,
            "absent": self.absent,
            "agreement": None if self.agreement is None else self.agreement.to_dict(),
            **self.extra,
            "notes": list(self.notes),
        }


def too_few(n_human: int, units: int) -> str | None:
    """Why no human-only or calibrated figure can be made from `n_human` labels on `units` distinct units."""
    if n_human < MIN_MATCHED or units < MIN_MATCHED:
        return (
            f"{counted(n_human, 'human label')} on {counted(units, 'unit')} {'matches' if n_human == 1 else 'match'} "
            f"the run's judged units; at least {MIN_MATCHED} labels on {MIN_MATCHED} units are needed"
        )
    return None


__all__ = ["MIN_MATCHED", "Calibrated", "too_few"]
