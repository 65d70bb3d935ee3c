"""95% intervals of a judge's agreement with reference labels and of its Cohen's kappa, by bootstrap over items.

Agreement is the mean of per-item matches (1 or 0), a `mean` figure; kappa is no function of sums, so it is
recomputed from the confusion matrix of each resample's item counts (`statistic_interval`). The items are those
`judge_agreement` compares: a reference label and a scored verdict.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping

import numpy as np

from ..uncertainty import Interval, mean, ratio
from ..uncertainty.groups import as_dicts, group_intervals, group_statistic_interval
from ..unscored import Unscored
from .agreement import THREE_WAY, three_way
from .outcomes import Outcome

CLASSES = len(THREE_WAY)


def compared_pairs(
    verdicts: Mapping[Hashable, Outcome | Unscored], references: Mapping[Hashable, Outcome | str | None]
) -> tuple[np.ndarray, np.ndarray]:
    """(judged, reference) class codes (index in THREE_WAY) of the items `judge_agreement` compares."""
    pairs = [
        (THREE_WAY.index(three_way(verdicts[item])), THREE_WAY.index(three_way(reference)))
        for item, reference in references.items()
        if reference is not None and verdicts.get(item) is not None and not isinstance(verdicts[item], Unscored)
    ]
    codes = np.array(pairs, dtype=np.int64).reshape(-1, 2)
    return codes[:, 0], codes[:, 1]


def weighted_kappa(judged: np.ndarray, expected: np.ndarray, counts: np.ndarray) -> float:
    """Cohen's kappa with each item counted `counts` times; NaN where chance agreement is 1 (a single label)."""
    confusion = np.bincount(expected * CLASSES + judged, weights=counts, minlength=CLASSES**2).reshape(CLASSES, CLASSES)
    total = confusion.sum()
    if total == 0:
        return float("nan")
    observed = np.trace(confusion) / total
    chance = float(confusion.sum(axis=1) @ confusion.sum(axis=0)) / total**2
    return float("nan") if np.isclose(chance, 1.0) else float((observed - chance) / (1 - chance))


def agreement_intervals(judged: np.ndarray, expected: np.ndarray) -> dict[str, Interval | None]:
    """Intervals of `agreement` and `cohen_kappa` over the compared items (None: fewer than two items)."""
    if len(judged) == 0:
        return {"agreement": None, "cohen_kappa": None}
    found = group_intervals({"agreement": mean((judged == expected).astype(float))}, unit="item")
    found["cohen_kappa"] = group_statistic_interval(
        lambda counts: weighted_kappa(judged, expected, counts), len(judged), "item"
    )
    return found


def agreement_interval_dicts(
    verdicts: Mapping[Hashable, Outcome | Unscored], references: Mapping[Hashable, Outcome | str | None]
) -> dict[str, dict[str, float | int] | None]:
    """The results-file form of `agreement_intervals` for these verdicts and references."""
    return as_dicts(agreement_intervals(*compared_pairs(verdicts, references)))


def rate_interval(hits: np.ndarray, counted: np.ndarray) -> Interval | None:
    """The interval of sum(hits) / sum(counted) with the item as the unit (a flip rate: 0/1 per compared item; a
    first-position share: decisive verdicts choosing the first answer out of the item's decisive verdicts)."""
    if len(hits) == 0:
        return None
    return group_intervals({"rate": ratio(hits, counted)}, unit="item")["rate"]
