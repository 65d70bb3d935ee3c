"""HelloEval scores: weighted row scores, task scores rescaled to (mean - 75) * 4, and their breakdowns.

Unscored rows are left out of every mean and counted; they are never scored 0. A verdict is usable only if it
holds one checklist score per weight, each a finite number in [0, 1] (not a bool, None or a string); any other
verdict makes its row unscored, with the reason. Weights are configuration, not judge output: weights that are
not finite numbers >= 0 summing to 100 raise a ValueError.
"""

from __future__ import annotations

import math
import numbers
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from itertools import chain
from typing import Any

import numpy as np

from longform_eval.common.plurals import counted

from ..unscored import Unscored
from .weights import TASKS

TASK_OFFSET = 75.0
TASK_SCALE = 4.0
WEIGHT_TOTAL = 100.0
WEIGHT_TOTAL_TOLERANCE = 0.1  # hand-written weights rounded to 2 decimals still pass
PLAIN_NUMBERS = frozenset({float, int})  # types whose values need only a range check (not bool: type(True) is bool)


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


def describe(value: object) -> str:
    """A short rendering of a value for an error or an unscored reason."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return f"{float(value):g}"
    return repr(value)[:40]


def checklist_value_problem(value: object) -> str | None:
    """Why `value` cannot be a checklist score (a finite number in [0, 1], not a bool), or None if it can."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        return f"{describe(value)} is not a number"
    if not math.isfinite(value):
        return f"{describe(value)} is not a finite number"
    if not 0.0 <= value <= 1.0:
        return f"{describe(value)} is outside [0, 1]"
    return None


def checklist_scores(verdict: object, size: int) -> Sequence[float] | Unscored:
    """The verdict if it holds `size` valid checklist scores, else Unscored with the first problem found."""
    if isinstance(verdict, Unscored):
        return verdict
    if isinstance(verdict, (str, bytes)) or not isinstance(verdict, (Sequence, np.ndarray)):
        return Unscored(f"expected a list of checklist scores, got {type(verdict).__name__}")
    if len(verdict) != size:
        return Unscored(f"expected {counted(size, 'checklist score')}, got {len(verdict)}")
    if all(type(v) is float and 0.0 <= v <= 1.0 for v in verdict):  # the common case, checked fast
        return verdict
    for position, value in enumerate(verdict):
        problem = checklist_value_problem(value)
        if problem is not None:
            return Unscored(f"checklist score {position}: {problem}")
    return verdict


def check_weights(weights: Sequence[float], where: str = "weights") -> None:
    """Raise a ValueError naming `where` unless the weights are finite numbers >= 0 that sum to 100."""
    if isinstance(weights, (str, bytes)) or not isinstance(weights, (Sequence, np.ndarray)) or not len(weights):
        raise ValueError(f"{where}: expected a non-empty list of numbers, got {describe(weights)}")
    for position, weight in enumerate(weights):
        if isinstance(weight, (bool, np.bool_)) or not isinstance(weight, numbers.Real) or not math.isfinite(weight):
            raise ValueError(f"{where}[{position}]: {describe(weight)} is not a finite number")
        if weight < 0:
            raise ValueError(f"{where}[{position}]: {describe(weight)} is negative")
    total = float(sum(weights))
    if abs(total - WEIGHT_TOTAL) > WEIGHT_TOTAL_TOLERANCE:
        raise ValueError(f"{where}: sum to {total:g}, expected {WEIGHT_TOTAL:g}")


def word_count_problem(value: object) -> str | None:
    """Why `value` cannot be a word count (None or an integer >= 0), or None if it can."""
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral) or value < 0:
        return f"{describe(value)} is not a non-negative integer"
    return None


def row_score(scores: Sequence[float], weights: Sequence[float]) -> float | Unscored:
    """Sum of checklist score times weight (0..100), or Unscored when the scores are not usable."""
    check_weights(weights)
    checked = checklist_scores(scores, len(weights))
    if isinstance(checked, Unscored):
        return checked
    return float(np.dot(np.asarray(checked, dtype=float), np.asarray(weights, dtype=float)))


def score_matrix(verdicts: list[Sequence[float]], size: int) -> tuple[np.ndarray, list[str], np.ndarray]:
    """The usable verdicts as an (n, size) array, the unscored reasons of the others (see `checklist_scores`),
    and which of the given verdicts were usable (a boolean mask).

    Lists of plain floats and ints of the right length, the usual input, are range-checked all at once.
    """
    reasons: list[str] = []
    kept = np.ones(len(verdicts), dtype=bool)
    lengths = set(map(len, verdicts))
    if not (lengths <= {size} and PLAIN_NUMBERS.issuperset(map(type, chain.from_iterable(verdicts)))):
        checked = [checklist_scores(verdict, size) for verdict in verdicts]
        kept = np.array([not isinstance(c, Unscored) for c in checked], dtype=bool)
        reasons = [c.reason for c in checked if isinstance(c, Unscored)]
        verdicts = [c for c in checked if not isinstance(c, Unscored)]
    values = np.asarray(verdicts, dtype=float).reshape(len(verdicts), size)
    usable = ((values >= 0.0) & (values <= 1.0)).all(axis=1)  # NaN fails both comparisons
    reasons += [checklist_scores(verdicts[i], size).reason for i in np.flatnonzero(~usable).tolist()]
    kept[np.flatnonzero(kept)[~usable]] = False
    return values[usable], reasons, kept


def score_rows(
    rows: Iterable[JudgedRow],
    weights: dict[str, Sequence[float]],
    task_of: dict[str, str],
) -> HelloEvalScores:
    """Aggregate judged rows. `weights` and `task_of` are keyed by subcategory.

    A row whose verdict is not usable (see `checklist_scores`) is unscored with the reason. Raises KeyError for
    a subcategory without weights or task, ValueError for bad weights or a bad word count.
    """
    candidates: dict[str, list[Sequence[float]]] = defaultdict(list)
    unscored: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    counts: dict[str, list[int | None]] = defaultdict(list)  # one per row, aligned with `candidates`
    words: dict[str, list[int]] = defaultdict(list)  # of scored rows only, as upstream's compute.py counts WC
    checked: set[str] = set()
    for row in rows:
        if row.subcategory not in checked:
            if row.subcategory not in weights or row.subcategory not in task_of:
                raise KeyError(f"row {row.row_id}: unknown subcategory {row.subcategory!r}")
            check_weights(weights[row.subcategory], f"weights[{row.subcategory!r}]")
            checked.add(row.subcategory)
        if row.word_count is not None and (type(row.word_count) is not int or row.word_count < 0):
            problem = word_count_problem(row.word_count)  # the slow check only when needed
            if problem is not None:
                raise ValueError(f"row {row.row_id}: word_count {problem}")
        verdict = row.verdict
        if type(verdict) is not list and type(verdict) is not tuple:
            verdict = checklist_scores(verdict, len(weights[row.subcategory]))
        if isinstance(verdict, Unscored):
            unscored[row.subcategory] += 1
            reasons[verdict.reason] += 1
        else:
            candidates[row.subcategory].append(verdict)  # checked by `score_matrix`, a subcategory at a time
            counts[row.subcategory].append(row.word_count)
    row_scores = {}
    for sub, lists in candidates.items():
        values, problems, kept = score_matrix(lists, len(weights[sub]))
        unscored[sub] += len(problems)
        reasons.update(problems)
        row_scores[sub] = values @ np.asarray(weights[sub], dtype=float)
        words[sub] = [n for n, usable in zip(counts[sub], kept, strict=True) if usable and n is not None]
    subcategories = {
        sub: summarize([row_scores.get(sub)], unscored[sub], words.get(sub, []), rescale=False)
        for sub in sorted(set(row_scores) | set(unscored))
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
        n_scored=sum(len(v) for v in row_scores.values()),
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


def scored(row: JudgedRow, weights: dict[str, list[float]]) -> float | None:
    """The row score for the report, or None for an unscored row (a verdict of the wrong length included)."""
    value = row.verdict if isinstance(row.verdict, Unscored) else row_score(row.verdict, weights[row.subcategory])
    return None if isinstance(value, Unscored) else value
