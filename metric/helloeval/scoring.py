"""HelloEval scores: weighted row scores, task scores rescaled to (mean - 75) * 4, and their breakdowns.

Unscored rows are left out of every mean and counted; they are never scored 0.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from ..unscored import Unscored
from .weights import TASKS

TASK_OFFSET = 75.0
TASK_SCALE = 4.0


@dataclass(frozen=True)
class JudgedRow:
    """One row's verdict: checklist scores (aligned with the weights) or Unscored."""

    row_id: str
    subcategory: str
    verdict: Sequence[float] | Unscored
    word_count: int | None = None


@dataclass
class GroupSummary:
    """Figures for one task or subcategory."""

    n_scored: int = 0
    n_unscored: int = 0
    mean_row_score: float | None = None
    score: float | None = None
    mean_word_count: float | None = None


@dataclass
class HelloEvalScores:
    overall: float | None
    tasks: dict[str, GroupSummary]
    subcategories: dict[str, GroupSummary]
    n_scored: int
    n_unscored: int
    unscored_reasons: dict[str, int] = field(default_factory=dict)
    mean_word_count: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def task_score(mean_row_score: float) -> float:
    """Rescale a mean row score (0..100) to the paper's task score (-300..100)."""
    return (mean_row_score - TASK_OFFSET) * TASK_SCALE


def row_score(scores: Sequence[float], weights: Sequence[float]) -> float | Unscored:
    if len(scores) != len(weights):
        return Unscored(f"expected {len(weights)} checklist scores, got {len(scores)}")
    return float(np.dot(np.asarray(scores, dtype=float), np.asarray(weights, dtype=float)))


def score_rows(
    rows: Iterable[JudgedRow],
    weights: dict[str, Sequence[float]],
    task_of: dict[str, str],
) -> HelloEvalScores:
    """Aggregate judged rows. `weights` and `task_of` are keyed by subcategory."""
    scored: dict[str, list[Sequence[float]]] = defaultdict(list)
    unscored: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    words: dict[str, list[int]] = defaultdict(list)
    for row in rows:
        if row.subcategory not in weights:
            raise KeyError(f"row {row.row_id}: unknown subcategory {row.subcategory!r}")
        verdict = row.verdict
        if not isinstance(verdict, Unscored) and len(verdict) != len(weights[row.subcategory]):
            verdict = Unscored(f"expected {len(weights[row.subcategory])} checklist scores, got {len(verdict)}")
        if isinstance(verdict, Unscored):
            unscored[row.subcategory] += 1
            reasons[verdict.reason] += 1
        else:
            scored[row.subcategory].append(verdict)
        if row.word_count is not None:
            words[row.subcategory].append(row.word_count)
    row_scores = {
        sub: np.asarray(lists, dtype=float) @ np.asarray(weights[sub], dtype=float) for sub, lists in scored.items()
    }
    subcategories = {
        sub: summarize([row_scores.get(sub)], unscored[sub], words.get(sub, []), rescale=False)
        for sub in sorted(set(scored) | set(unscored))
    }
    tasks = {}
    for task in TASKS:
        subs = [sub for sub in subcategories if task_of[sub] == task]
        if subs:
            counts = sum(unscored[sub] for sub in subs)
            task_words = [n for sub in subs for n in words.get(sub, [])]
            tasks[task] = summarize([row_scores.get(sub) for sub in subs], counts, task_words, rescale=True)
    task_scores = [t.score for t in tasks.values() if t.score is not None]
    task_words = [t.mean_word_count for t in tasks.values() if t.mean_word_count is not None]
    return HelloEvalScores(
        overall=float(np.mean(task_scores)) if task_scores else None,
        tasks=tasks,
        subcategories=subcategories,
        n_scored=sum(len(v) for v in scored.values()),
        n_unscored=sum(unscored.values()),
        unscored_reasons=dict(reasons.most_common()),
        mean_word_count=float(np.mean(task_words)) if task_words else None,
    )


def summarize(score_arrays: list[np.ndarray | None], n_unscored: int, words: list[int], rescale: bool) -> GroupSummary:
    present = [a for a in score_arrays if a is not None and len(a)]
    values = np.concatenate(present) if present else np.empty(0)
    mean = float(values.mean()) if len(values) else None
    return GroupSummary(
        n_scored=len(values),
        n_unscored=n_unscored,
        mean_row_score=mean,
        score=task_score(mean) if (rescale and mean is not None) else None,
        mean_word_count=float(np.mean(words)) if words else None,
    )


def first_verdict_per_known_id(records: Iterable[dict[str, Any]], known_ids: set[str]) -> list[dict[str, Any]]:
    """Released verdict files: skip ids not in the data and repeated ids (the first one wins)."""
    seen: set[str] = set()
    kept = []
    for record in records:
        row_id = record.get("id")
        if row_id in known_ids and row_id not in seen:
            seen.add(row_id)
            kept.append(record)
    return kept
