"""A judge's verdicts against reference (human) labels: agreement, Cohen's kappa and the confusion matrix, each
figure with its interval, on an explicit label set (`uncertainty.label_agreement.Agreement`, the package's one).

- `labels=4`: the four outcomes (A, B, equally_good, equally_bad): `calibrate`, the `pairwise` metric and the
  Space, whose votes carry the four.
- `labels=3`: A, B and tie, where "equally good" and "equally bad" are one tie: `judge-agreement`, as PandaLM's
  human labels have three classes.

The same votes give other figures on the two sets (a judge saying "equally bad" where a person said "equally good"
agrees on 3 labels, not on 4), so each figure is printed with its set (`Agreement.label_set`).
"""

from __future__ import annotations

import numbers
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import replace

from ..uncertainty.intervals import DEFAULT_LEVEL, DEFAULT_SEED
from ..uncertainty.label_agreement import Agreement, label_agreement
from ..unscored import Unscored
from .outcomes import Outcome, as_outcome

TIE = "tie"
THREE_WAY = ("A", "B", TIE)
FOUR_WAY = tuple(outcome.value for outcome in Outcome)
LABEL_SETS = {3: THREE_WAY, 4: FOUR_WAY}


def three_way(label: Outcome | str) -> str:
    """ "A", "B" or "tie" for an outcome or a label ("tie" itself, or any label `as_outcome` reads)."""
    if label == TIE:
        return TIE
    outcome = as_outcome(label)
    return outcome.value if outcome in (Outcome.A, Outcome.B) else TIE


def label_in(label: Outcome | str, labels: int) -> str:
    """`label` in the label set of `labels` labels (4: the outcome's value; 3: `three_way`)."""
    return three_way(label) if labels == 3 else as_outcome(label).value


def label_set(labels: int) -> tuple[str, ...]:
    """The labels of the set of `labels` (3 or 4); a ValueError naming the argument otherwise."""
    if isinstance(labels, bool) or not isinstance(labels, numbers.Integral) or labels not in LABEL_SETS:
        raise ValueError(f"labels must be 3 (A, B, tie) or 4 (A, B, equally_good, equally_bad), got {labels!r}")
    return LABEL_SETS[labels]


def agreement(
    reference: Sequence[Outcome | str],
    judged: Sequence[Outcome | str],
    labels: int,
    unit: str = "item",
    level: float = DEFAULT_LEVEL,
    seed: int = DEFAULT_SEED,
) -> Agreement:
    """Agreement and Cohen's kappa of `judged` with `reference` (outcomes or labels `as_outcome` reads, of the same
    units) on the set of `labels` labels, with their intervals over the units."""
    names = label_set(labels)
    first, second = [label_in(x, labels) for x in reference], [label_in(x, labels) for x in judged]
    return label_agreement(first, second, names, unit, level, seed)


def judge_agreement(
    verdicts: Mapping[Hashable, Outcome | Unscored],
    references: Mapping[Hashable, Outcome | str | None],
    labels: int,
    seed: int = DEFAULT_SEED,
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
        judged.append(verdict)
        expected.append(reference)
    found = agreement(expected, judged, labels, unit="item", seed=seed)
    return replace(found, n_unscored=unscored, n_no_reference=missing)
