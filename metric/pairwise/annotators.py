"""Evaluator quality control and agreement (TencentLLMEval).

- GSB(annotator) = (#A - #B) / (#A + #B + #EG + #EB); z = (GSB - mean) / std over annotators (population std);
  |z| > 1.7 flags an annotator.
- Overlap questions: an item labelled by several annotators whose most common label has >= 80% of the votes
  gets that label as gold; an annotator who misses the gold on more than 3 items is flagged.
- An annotator on both lists is disqualified.
- Agreement of two annotators: share of their common items with the same label. Per item with three labels:
  1 if all agree, 1/3 if exactly two agree, 0 otherwise.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from .outcomes import Battle, Outcome

Z_THRESHOLD = 1.7
CONSENSUS = 0.8
MAX_GOLD_MISSES = 3


def gsb(battles: Sequence[Battle]) -> dict[str, float]:
    counts: dict[str, Counter] = defaultdict(Counter)
    for battle in battles:
        if battle.annotator is None:
            raise ValueError(f"battle on item {battle.item_id!r} has no annotator")
        counts[battle.annotator][battle.outcome] += 1
    return {annotator: (c[Outcome.A] - c[Outcome.B]) / sum(c.values()) for annotator, c in sorted(counts.items())}


def z_scores(values: Mapping[str, float]) -> dict[str, float]:
    if not values:
        return {}
    array = np.array(list(values.values()), dtype=float)
    std = array.std()
    if std == 0:
        return dict.fromkeys(values, 0.0)
    return {k: float((v - array.mean()) / std) for k, v in values.items()}


def gold_labels(labels: Mapping[Hashable, Mapping[str, Outcome]], consensus: float = CONSENSUS) -> dict:
    """Items labelled by two or more annotators whose majority label reaches `consensus`."""
    gold = {}
    for item, by_annotator in labels.items():
        if len(by_annotator) < 2:
            continue
        label, votes = Counter(by_annotator.values()).most_common(1)[0]
        if votes / len(by_annotator) >= consensus:
            gold[item] = label
    return gold


def gold_misses(labels: Mapping[Hashable, Mapping[str, Outcome]], gold: Mapping) -> dict[str, int]:
    misses: Counter[str] = Counter()
    for item, label in gold.items():
        for annotator, given in labels[item].items():
            misses[annotator] += given != label
    return dict(misses)


@dataclass(frozen=True)
class AnnotatorQC:
    annotator: str
    gsb: float
    z: float
    gsb_flag: bool
    gold_misses: int
    gold_flag: bool

    @property
    def disqualified(self) -> bool:
        return self.gsb_flag and self.gold_flag


def quality_control(battles: Sequence[Battle], z_threshold: float = Z_THRESHOLD) -> list[AnnotatorQC]:
    """GSB z-score and overlap-question checks for every annotator."""
    scores = gsb(battles)
    z = z_scores(scores)
    labels: dict[Hashable, dict[str, Outcome]] = defaultdict(dict)
    for battle in battles:
        labels[(battle.item_id, battle.model_a, battle.model_b)][battle.annotator] = battle.outcome
    misses = gold_misses(labels, gold_labels(labels))
    return [
        AnnotatorQC(a, scores[a], z[a], abs(z[a]) > z_threshold, misses.get(a, 0), misses.get(a, 0) > MAX_GOLD_MISSES)
        for a in scores
    ]


def pairwise_agreement(first: Mapping[Hashable, Outcome], second: Mapping[Hashable, Outcome]) -> float | None:
    common = first.keys() & second.keys()
    if not common:
        return None
    return sum(first[k] == second[k] for k in common) / len(common)


def three_label_agreement(labels: Sequence[Hashable]) -> float:
    if len(labels) != 3:
        raise ValueError(f"expected three labels, got {len(labels)}")
    distinct = len(set(labels))
    return {1: 1.0, 2: 1.0 / 3.0}.get(distinct, 0.0)


def majority(labels: Sequence[Hashable]) -> Hashable | None:
    """The label given by more than half, or None (also for no labels)."""
    if not labels:
        return None
    label, votes = Counter(labels).most_common(1)[0]
    return label if votes * 2 > len(labels) else None
