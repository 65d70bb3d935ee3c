"""Metric layer: pure scoring, no I/O: a judge's answer -> a verdict, verdicts -> the accuracy."""

from __future__ import annotations

from longform_eval.metric import Unscored


def verdict(completion: str, target: str) -> bool | Unscored:
    """Whether the judge's answer is the target word; an empty answer is unscored."""
    word = completion.strip().lower()
    return word == target.lower() if word else Unscored("empty judge answer")


def accuracy(verdicts: list[bool]) -> float | None:
    """Percentage of right answers (None with none scored)."""
    return 100.0 * sum(verdicts) / len(verdicts) if verdicts else None
