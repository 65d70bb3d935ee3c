"""The four outcomes of a pairwise comparison, position swaps, and the one rule for ties.

The rule used everywhere in this package (win rate, Elo, Bradley-Terry): "A better" is a win for A, "B better" a
win for B, and both "equally good" and "equally bad" are draws (half a win each). TencentLLMEval's own win-rate
formula, which gives nothing to either side for "equally bad", is kept under its own name
(`winrate.tencent_win_rate`).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum

from ..unscored import Unscored


class Outcome(str, Enum):
    A = "A"
    B = "B"
    EQUALLY_GOOD = "equally_good"
    EQUALLY_BAD = "equally_bad"


ALIASES = {
    "a": Outcome.A,
    "b": Outcome.B,
    "equally_good": Outcome.EQUALLY_GOOD,
    "equally good": Outcome.EQUALLY_GOOD,
    "eg": Outcome.EQUALLY_GOOD,
    "both good": Outcome.EQUALLY_GOOD,
    "tie": Outcome.EQUALLY_GOOD,
    "equally_bad": Outcome.EQUALLY_BAD,
    "equally bad": Outcome.EQUALLY_BAD,
    "eb": Outcome.EQUALLY_BAD,
    "both bad": Outcome.EQUALLY_BAD,
}


def as_outcome(label: str | Outcome) -> Outcome:
    """Parse a label ("A", "B", "equally_good", "equally_bad", or an alias such as "tie")."""
    if isinstance(label, Outcome):
        return label
    key = str(label).strip().lower()
    if key not in ALIASES:
        raise ValueError(f"unknown pairwise label {label!r}; use A, B, equally_good or equally_bad")
    return ALIASES[key]


def score_for_a(outcome: Outcome) -> float:
    """1 for a win of A, 0 for a win of B, 0.5 for either tie."""
    return {Outcome.A: 1.0, Outcome.B: 0.0}.get(outcome, 0.5)


def swap(outcome: Outcome) -> Outcome:
    """The same verdict seen with the two answers exchanged."""
    return {Outcome.A: Outcome.B, Outcome.B: Outcome.A}.get(outcome, outcome)


def combine_orders(original: Outcome | Unscored, swapped: Outcome | Unscored) -> Outcome | Unscored:
    """Combine a judge's verdicts in both orders (`swapped` is in the swapped frame, i.e. A is the 2nd answer).

    Agreement keeps the verdict; disagreement is a tie: "equally bad" if either order said so, else
    "equally good". An unscored order leaves the pair unscored.
    """
    if isinstance(original, Unscored):
        return original
    if isinstance(swapped, Unscored):
        return swapped
    back = swap(swapped)
    if back == original:
        return original
    return Outcome.EQUALLY_BAD if Outcome.EQUALLY_BAD in (original, back) else Outcome.EQUALLY_GOOD


def flip_rate(pairs: Iterable[tuple[Outcome | Unscored, Outcome | Unscored]]) -> float | None:
    """Share of scored (original, swapped) verdict pairs whose decision changes when the answers swap."""
    scored = [(a, swap(b)) for a, b in pairs if not isinstance(a, Unscored) and not isinstance(b, Unscored)]
    if not scored:
        return None
    return sum(1 for a, b in scored if a != b) / len(scored)


@dataclass(frozen=True)
class Battle:
    """One comparison of model_a (shown as A) against model_b.

    Both models must be non-empty strings and differ (a model compared with itself tells a rating nothing); the
    outcome is an `Outcome` or a label `as_outcome` reads (an unknown label raises a ValueError).
    """

    model_a: str
    model_b: str
    outcome: Outcome
    annotator: str | None = None
    item_id: str | None = None

    def __post_init__(self) -> None:
        for side in ("model_a", "model_b"):
            problem = model_name_problem(getattr(self, side))
            if problem is not None:
                raise ValueError(f"{side}: {problem}")
        if self.model_a == self.model_b:
            raise ValueError(f"model {self.model_a!r} is compared with itself")
        if not isinstance(self.outcome, Outcome):
            object.__setattr__(self, "outcome", as_outcome(self.outcome))


def model_name_problem(name: object) -> str | None:
    """Why `name` cannot name a model (a non-empty string), or None if it can."""
    if not isinstance(name, str):
        return f"expected a model name (a string), got {name!r:.40}"
    if not name.strip():
        return f"expected a model name, got the empty string {name!r}"
    return None


def models_of(battles: Sequence[Battle]) -> list[str]:
    return sorted({b.model_a for b in battles} | {b.model_b for b in battles})


SINGLE_SCORE_RANGE = (1.0, 10.0)


def single_score_problem(score: object) -> str | None:
    """Why `score` is not a usable 1-10 judge score (a finite number, not a bool, in [1, 10]), or None."""
    low, high = SINGLE_SCORE_RANGE
    if isinstance(score, bool) or not isinstance(score, numbers.Real):
        return f"{score!r:.40} is not a number"
    if not math.isfinite(score) or not low <= score <= high:
        return f"{score!r} is outside [{low:g}, {high:g}]"
    return None


def from_single_scores(score_a: float, score_b: float) -> Outcome | Unscored:
    """TencentLLMEval's mapping of two 1-10 scores to a pairwise outcome (symmetric in A and B).

    A better if S_A - S_B > 2 and S_A > 5; B better if S_B - S_A > 2 and S_B > 5; equally good if
    |S_A - S_B| <= 2 and both > 5; otherwise equally bad. A score that is not a finite number in [1, 10] (NaN,
    None, a bool, 0, 11) leaves the pair unscored, with the reason.
    """
    for side, score in (("A", score_a), ("B", score_b)):
        problem = single_score_problem(score)
        if problem is not None:
            return Unscored(f"score of {side}: {problem}")
    if score_a - score_b > 2 and score_a > 5:
        return Outcome.A
    if score_b - score_a > 2 and score_b > 5:
        return Outcome.B
    if abs(score_a - score_b) <= 2 and score_a > 5 and score_b > 5:
        return Outcome.EQUALLY_GOOD
    return Outcome.EQUALLY_BAD
