"""A pairwise run's win rate calibrated by people: each comparison as 1 (model better), 0.5 (either tie), 0.

The rule is the package's (`metric.pairwise.outcomes`): both "equally good" and "equally bad" are half a win, the
headline `win_rate` of scores.json. A unit is a judged item; several human labels of one item are clustered on it.
Every figure is cut to the win rate's scale, 0..1, its estimate with its interval (`estimate.on_scale`). The judge's
agreement with the humans is on the four outcomes (`pairwise.agreement`, labels=4), as the Space's and the metric's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from longform_eval.common.plurals import counted

from ..pairwise.agreement import agreement
from ..pairwise.outcomes import as_outcome
from ..pairwise.uncertainty import WIN_VALUE
from .ppi import DEFAULT_LEVEL, classical_mean, clusters_of, ppi_mean
from .result import Calibrated, too_few

WIN_RATE = (0.0, 1.0)
AGREEMENT_LABELS = 4  # the four outcomes, as the Space and the metric compare them
WIN_RATE_NOTE = "win rate: A better 1, B better 0, equally good and equally bad 0.5 each (the package's rule)"


def win_value(outcome: str) -> float:
    return WIN_VALUE[as_outcome(outcome)]


def calibrate_win_rate(
    judge: Mapping[str, str], human: Sequence[tuple[str, str]], level: float = DEFAULT_LEVEL, seed: int = 0
) -> Calibrated:
    """`judge`: the judge's outcome per item (the run's frame: A is the model); `human`: (item, outcome) in the same
    frame, on items of `judge` (one item may have several). The figures are fractions (0..1)."""
    unknown = sorted({item for item, _ in human} - set(judge))
    if unknown:
        raise ValueError(
            f"{counted(len(unknown), 'human label')} {'names' if len(unknown) == 1 else 'name'} items the judge did "
            f"not score (first: {unknown[0]})"
        )
    judge_only = classical_mean([win_value(o) for o in judge.values()], "judge-only", level, scale=WIN_RATE)
    labelled = {item for item, _ in human}
    rest = [win_value(outcome) for item, outcome in judge.items() if item not in labelled]
    human_labels, judge_labels = matched_labels(judge, human)
    agreed = agreement(human_labels, judge_labels, AGREEMENT_LABELS, unit="label", level=level, seed=seed)
    common = {"n_human": len(human), "n_judge": len(judge), "agreement": agreed, "notes": (WIN_RATE_NOTE,)}
    reason = too_few(len(human), len(labelled))
    if reason is not None:
        return Calibrated("win_rate", judge_only, None, None, absent=reason, **common)
    clusters = clusters_of(human)  # None where each item has one label (iid)
    values = [win_value(outcome) for _, outcome in human]
    human_only = classical_mean(values, "human-only", level, clusters=clusters, scale=WIN_RATE)
    if len(rest) < 2:
        have = "has" if len(rest) == 1 else "have"
        why = (
            f"{counted(len(rest), 'judged item')} {have} no human label; PPI needs two: the human-only figure "
            "stands alone"
        )
        return Calibrated("win_rate", judge_only, human_only, None, absent=why, **common)
    judged = [win_value(judge[item]) for item, _ in human]
    ppi = ppi_mean(values, judged, rest, level, clusters=clusters, scale=WIN_RATE)
    return Calibrated("win_rate", judge_only, human_only, ppi, **common)


def matched_labels(judge: Mapping[str, str], human: Sequence[tuple[str, str]]) -> tuple[list[str], list[str]]:
    """(human outcomes, the judge's outcome on the same items), as canonical labels."""
    return [as_outcome(o).value for _, o in human], [as_outcome(judge[i]).value for i, _ in human]


__all__ = ["WIN_RATE_NOTE", "calibrate_win_rate", "win_value"]
