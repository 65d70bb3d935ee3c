"""95% intervals of shares of items beside a judge's agreement (`agreement.judge_agreement` makes the agreement and
kappa with theirs): the flip rate, the first-position share, and human-human agreement.

A share of 0/1 items takes Wilson's score interval, one-sided at 0 of n and n of n; a share pooled over items (an
item's decisive verdicts, or its annotator pairs) the t interval on its logit, in [0, 1], and Wilson's one-sided
bound where every item sits at 0 or at 1 (`uncertainty.wilson`). None on a single item or where the figure does not
vary inside the scale, and none for human-human agreement where every label is the same (the annotators cannot
disagree): the reason is given.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping

import numpy as np

from ..uncertainty import DEFAULT_LEVEL, DEFAULT_SEED, Interval, ratio
from ..uncertainty.bounded import SHARE_SCALE, share_interval
from ..uncertainty.groups import group_intervals
from ..uncertainty.label_agreement import RESAMPLES

METHOD = (
    f"{DEFAULT_LEVEL:.0%} intervals over items: agreement and other shares of 0/1 items (the flip rate) Wilson's score "
    f"interval (one-sided at 0 of n and n of n); Cohen's kappa the bootstrap SE ({RESAMPLES} resamples, seed "
    f"{DEFAULT_SEED}) rescaled by sqrt(n / (n - 1)), a t quantile, cut to [-1, 1]; a share pooled over items (first "
    "position) the t interval on its logit, in [0, 1]; none on a single item, where every label is the same, or where "
    "the figure does not vary (the reason is given)"
)


def rate_interval(hits: np.ndarray, counted: np.ndarray) -> Interval | None:
    """The interval of sum(hits) / sum(counted) with the item as the unit, in [0, 1]: Wilson's where each item counts
    one 0/1 hit (a flip rate), else the package's interval on [0, 1] (a first-position share: an item's decisive
    verdicts choosing the first answer out of its decisive verdicts)."""
    if len(hits) < 2:
        return None
    if np.all(counted == 1) and np.all((hits == 0) | (hits == 1)):
        return share_interval(hits)
    return group_intervals({"rate": ratio(hits, counted)}, unit="item", bounds={"rate": SHARE_SCALE})["rate"]


def annotator_agreement(
    labels: Mapping[Hashable, Mapping[Hashable, Hashable]],
) -> tuple[float | None, Interval | None, str | None]:
    """Human-human agreement: of every two annotators' labels on an item both labelled, the share alike (pooled over
    items and annotator pairs), with its interval over items (`rate_interval`: an item with several annotators is
    one unit) and, where it has none, why. `labels`: annotator -> item -> label. (None, None, why) where no item has
    two annotators."""
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
        return None, None, "no item has two annotators"
    hit, count = np.array(hits, dtype=float), np.array(counted, dtype=float)
    point = float(hit.sum() / count.sum())
    shared = {label for item, given in by_item.items() if len(given) > 1 for label in given}
    if len(shared) == 1:
        return point, None, f"every label is {shared.pop()!r}: the annotators cannot disagree; no interval"
    found = rate_interval(hit, count)
    return point, found, None if found is not None else no_rate_interval(len(hit))


def no_rate_interval(items: int) -> str:
    return "one item: no interval" if items < 2 else "every item's share of agreeing pairs is the same: no spread"
