"""95% intervals of a judge's agreement with reference labels and of its Cohen's kappa, over items.

The figures and their intervals are the package's one implementation (`uncertainty.label_agreement`: Wilson's score
interval for the agreement, kappa's bootstrap SE with a t quantile cut to [-1, 1]), so both stay on their scales. The
items are those `judge_agreement` compares: a reference label and a scored verdict.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping

import numpy as np

from ..uncertainty import DEFAULT_LEVEL, DEFAULT_ROUNDS, DEFAULT_SEED, Interval, ratio
from ..uncertainty.bounded import SHARE_SCALE, share_interval
from ..uncertainty.groups import as_dicts, group_intervals
from ..uncertainty.label_agreement import label_agreement
from ..uncertainty.label_agreement import weighted_kappa as coded_kappa
from ..unscored import Unscored
from .agreement import THREE_WAY, three_way
from .outcomes import Outcome

CLASSES = len(THREE_WAY)
FIGURES = ("agreement", "cohen_kappa")
METHOD = (
    f"{DEFAULT_LEVEL:.0%} intervals over items: agreement and other shares of 0/1 items (the flip rate) Wilson's score "
    f"interval; Cohen's kappa the bootstrap SE ({DEFAULT_ROUNDS} resamples, seed {DEFAULT_SEED}) rescaled by "
    "sqrt(n / (n - 1)), a t quantile, cut to [-1, 1]; a share pooled over items (first position) the t interval on "
    "its logit, in [0, 1]; none on a single item or where the figure does not vary (the reason is given)"
)


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
    return coded_kappa(expected, judged, CLASSES, counts)


def agreement_intervals(judged: np.ndarray, expected: np.ndarray) -> dict[str, Interval | None]:
    """Intervals of `agreement` and `cohen_kappa` over the compared items (None: `interval_notes` says why)."""
    return interval_notes(judged, expected)[0]


def interval_notes(judged: np.ndarray, expected: np.ndarray) -> tuple[dict[str, Interval | None], dict[str, str]]:
    """The intervals of `agreement` and `cohen_kappa`, and why a figure has none (only those without one)."""
    found = label_agreement(list(expected), list(judged), unit="item")
    names = dict(zip(FIGURES, ("agreement", "kappa"), strict=True))
    notes = {name: found.reasons[key] for name, key in names.items() if key in found.reasons}
    return {"agreement": found.agreement_interval, "cohen_kappa": found.kappa_interval}, notes


def agreement_interval_dicts(
    verdicts: Mapping[Hashable, Outcome | Unscored], references: Mapping[Hashable, Outcome | str | None]
) -> dict[str, dict]:
    """The results-file form for these verdicts and references: {"intervals": {"agreement", "cohen_kappa"}} and,
    where a figure has no interval, "interval_notes" saying why (as scores.json keeps them)."""
    found, notes = interval_notes(*compared_pairs(verdicts, references))
    return {"intervals": as_dicts(found)} | ({"interval_notes": notes} if notes else {})


def rate_interval(hits: np.ndarray, counted: np.ndarray) -> Interval | None:
    """The interval of sum(hits) / sum(counted) with the item as the unit, in [0, 1]: Wilson's where each item counts
    one 0/1 hit (a flip rate), else the package's interval cut to [0, 1] (a first-position share: an item's decisive
    verdicts choosing the first answer out of its decisive verdicts)."""
    if len(hits) < 2:
        return None
    if np.all(counted == 1) and np.all((hits == 0) | (hits == 1)):
        return share_interval(hits)
    return group_intervals({"rate": ratio(hits, counted)}, unit="item", bounds={"rate": SHARE_SCALE})["rate"]


def annotator_agreement(
    labels: Mapping[Hashable, Mapping[Hashable, Hashable]],
) -> tuple[float | None, Interval | None]:
    """Human-human agreement: of every two annotators' labels on an item both labelled, the share alike (pooled over
    items and annotator pairs), with its interval over items (`rate_interval`: an item with several annotators is
    one unit). `labels`: annotator -> item -> label. None where no item has two annotators."""
    by_item: dict[Hashable, list[Hashable]] = {}
    for given in labels.values():
        for item, label in given.items():
            by_item.setdefault(item, []).append(label)
    hits, counted = [], []
    for item_labels in by_item.values():
        pairs = [(x, y) for i, x in enumerate(item_labels) for y in item_labels[i + 1 :]]
        if pairs:
            hits.append(sum(x == y for x, y in pairs))
            counted.append(len(pairs))
    if not counted:
        return None, None
    hit, count = np.array(hits, dtype=float), np.array(counted, dtype=float)
    return float(hit.sum() / count.sum()), rate_interval(hit, count)
