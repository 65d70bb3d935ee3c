"""LongGenBench metrics: CR, STIC-1, STIC-2, wAvg, Len, and their breakdowns (all in percent).

- CR: mean over items of 100 * |parsed ids within 1..N| / N.
- STIC-1: yes / judged checks, pooled over items and instruction types.
- STIC-2: yes / all checks (checks whose sub-task is missing count as failures).
- wAvg: CR * STIC-2 / 100.  Len: mean word count (`len(text.split())`) of items with more than 40 blocks
  and more than 2000 words.
Checks whose judge verdict is unscored (strict parsing) are left out of both STIC denominators and counted.
Items that cannot be scored (num_subtasks not a positive integer, an unknown check kind, a verdict list whose
length differs from the checks) raise a ValueError naming the item and the field.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from longform_eval.common.plurals import counted

from ..unscored import Unscored
from .splitting import completion_rate, count_blocks, split_subtasks

KINDS = ("single", "range", "periodic")
KIND_LABELS = {"single": "SI", "range": "RI", "periodic": "PI"}
MISSING, NO, YES, UNSCORED = 0, 1, 2, 3
LEN_MIN_BLOCKS = 40
LEN_MIN_WORDS = 2000


@dataclass(frozen=True)
class ItemResult:
    """One item's output figures and its check outcomes (codes MISSING / NO / YES / UNSCORED)."""

    item_id: str
    scenario: str
    num_subtasks: int
    completion_rate: float
    word_count: int
    n_blocks: int
    kinds: tuple[str, ...]
    subtasks: tuple[int, ...]
    outcomes: tuple[int, ...]


@dataclass
class Figures:
    n_checks: int
    n_judged: int
    n_yes: int
    n_unscored: int
    stic1: float | None
    stic2: float | None
    cr: float | None = None


@dataclass
class LongGenBenchScores:
    cr: float | None
    stic1: float | None
    stic2: float | None
    wavg: float | None
    length: float | None
    n_items: int
    n_checks: int
    n_judged: int
    n_yes: int
    n_unscored: int
    by_type: dict[str, Figures] = field(default_factory=dict)
    by_scenario: dict[str, Figures] = field(default_factory=dict)
    by_position: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def outcome_code(verdict: bool | Unscored | None) -> int:
    if verdict is None:
        return MISSING
    if isinstance(verdict, Unscored):
        return UNSCORED
    return YES if verdict else NO


def is_count(value: object) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


def check_item(item: Mapping[str, Any], where: str) -> None:
    """Raise a ValueError naming `where` and the field unless the dataset item can be scored."""
    if not isinstance(item, Mapping):
        raise ValueError(f"{where}: expected a dataset item (a dict), got {type(item).__name__}")
    size = item.get("num_subtasks")
    if not is_count(size) or size <= 0:
        raise ValueError(f"{where}['num_subtasks']: expected a positive integer, got {size!r}")
    for key in ("subtask_type", "scenario"):
        if not isinstance(item.get(key), str) or not item[key].strip():
            raise ValueError(f"{where}[{key!r}]: expected a non-empty string, got {item.get(key)!r}")
    checks = item.get("checks")
    if isinstance(checks, (str, bytes)) or not isinstance(checks, Sequence):
        raise ValueError(f"{where}['checks']: expected a list of checks, got {type(checks).__name__}")
    for position, check in enumerate(checks):
        check_check(check, f"{where}['checks'][{position}]")


def check_check(check: object, where: str) -> None:
    if not isinstance(check, Mapping):
        raise ValueError(f"{where}: expected a check (a dict), got {type(check).__name__}")
    if check.get("kind") not in KINDS:
        raise ValueError(f"{where}['kind']: unknown check kind {check.get('kind')!r}; use one of {', '.join(KINDS)}")
    subtask = check.get("subtask")
    if not (is_count(subtask) or (isinstance(subtask, str) and subtask.isdigit())) or int(subtask) < 1:
        raise ValueError(f"{where}['subtask']: expected a sub-task number >= 1, got {subtask!r}")
    if not isinstance(check.get("description"), str):
        raise ValueError(f"{where}['description']: expected a string, got {check.get('description')!r}")


def check_verdict(verdict: object, where: str) -> None:
    if verdict is not None and not isinstance(verdict, (bool, np.bool_, Unscored)):
        raise ValueError(f"{where}: expected True, False, None or Unscored, got {verdict!r:.40}")


def item_result(item: dict[str, Any], output: str, verdicts: Sequence[bool | Unscored | None]) -> ItemResult:
    """Combine a dataset item, its full output and one verdict per check (None where not judged).

    Raises a ValueError naming the item and the field for an item that cannot be scored (see `check_item`),
    a verdict count that differs from the checks, or a verdict that is not True, False, None or Unscored.
    """
    where = f"item {item.get('id')!r}" if isinstance(item, Mapping) else "item"
    check_item(item, where)
    if not isinstance(output, str):
        raise ValueError(f"{where}: output must be a string, got {type(output).__name__}")
    checks = item["checks"]
    if len(verdicts) != len(checks):
        raise ValueError(f"{where}: {counted(len(verdicts), 'verdict')} for {counted(len(checks), 'check')}")
    for position, verdict in enumerate(verdicts):
        check_verdict(verdict, f"{where}: verdicts[{position}]")
    blocks = split_subtasks(output, item["subtask_type"])
    return ItemResult(
        item_id=item["id"],
        scenario=item["scenario"],
        num_subtasks=item["num_subtasks"],
        completion_rate=completion_rate(blocks, item["num_subtasks"]),
        word_count=len(output.split()),
        n_blocks=count_blocks(output),
        kinds=tuple(check["kind"] for check in checks),
        subtasks=tuple(int(check["subtask"]) for check in checks),
        outcomes=tuple(outcome_code(v) for v in verdicts),
    )


def figures(outcomes: np.ndarray, cr: float | None = None) -> Figures:
    n_unscored = int(np.sum(outcomes == UNSCORED))
    n_checks = len(outcomes) - n_unscored
    n_yes = int(np.sum(outcomes == YES))
    n_judged = n_yes + int(np.sum(outcomes == NO))
    return Figures(
        n_checks=n_checks,
        n_judged=n_judged,
        n_yes=n_yes,
        n_unscored=n_unscored,
        stic1=100.0 * n_yes / n_judged if n_judged else None,
        stic2=100.0 * n_yes / n_checks if n_checks else None,
        cr=cr,
    )


def score_items(items: Sequence[ItemResult], position_bins: int = 10) -> LongGenBenchScores:
    """Pool the item results. Raises a ValueError for no items, bad bins, num_subtasks <= 0 or unknown kinds."""
    if not items:
        raise ValueError("no items to score")
    if not is_count(position_bins) or position_bins <= 0:
        raise ValueError(f"position_bins must be a positive integer, got {position_bins!r}")
    unknown = set().union(*(item.kinds for item in items)) - set(KINDS)
    if unknown:
        raise ValueError(f"unknown check kinds {sorted(map(str, unknown))}; use one of {', '.join(KINDS)}")
    counts = np.fromiter((len(item.outcomes) for item in items), dtype=np.int64, count=len(items))
    outcomes = np.fromiter((o for item in items for o in item.outcomes), dtype=np.int8, count=int(counts.sum()))
    kinds = np.array([kind for item in items for kind in item.kinds], dtype=object)
    subtasks = np.fromiter((s for item in items for s in item.subtasks), dtype=np.float64, count=len(outcomes))
    item_sizes = np.array([item.num_subtasks for item in items], dtype=np.float64)
    if not (item_sizes > 0).all():
        bad = next(item for item in items if not item.num_subtasks > 0)
        raise ValueError(f"item {bad.item_id!r}: num_subtasks must be a positive integer, got {bad.num_subtasks!r}")
    sizes = np.repeat(item_sizes, counts)
    scenarios = np.array([item.scenario for item in items], dtype=object)
    check_scenarios = np.repeat(scenarios, counts)
    crs = np.array([item.completion_rate for item in items])
    words = np.array([item.word_count for item in items])
    blocks = np.array([item.n_blocks for item in items])

    total = figures(outcomes, cr=float(crs.mean()))
    long_enough = (blocks > LEN_MIN_BLOCKS) & (words > LEN_MIN_WORDS)
    return LongGenBenchScores(
        cr=total.cr,
        stic1=total.stic1,
        stic2=total.stic2,
        wavg=total.cr * total.stic2 / 100.0 if total.stic2 is not None else None,
        length=float(words[long_enough].mean()) if long_enough.any() else None,
        n_items=len(items),
        n_checks=total.n_checks,
        n_judged=total.n_judged,
        n_yes=total.n_yes,
        n_unscored=total.n_unscored,
        by_type={KIND_LABELS[k]: figures(outcomes[kinds == k]) for k in KINDS if (kinds == k).any()},
        by_scenario={
            s: figures(outcomes[check_scenarios == s], cr=float(crs[scenarios == s].mean()))
            for s in sorted(set(scenarios.tolist()))
        },
        by_position=position_profile(outcomes, subtasks, sizes, position_bins),
    )


def position_profile(outcomes: np.ndarray, subtasks: np.ndarray, sizes: np.ndarray, bins: int) -> list[dict]:
    """STIC per relative sub-task position ((id - 1) / N, in `bins` equal bins): does quality fall with length?"""
    relative = np.clip((subtasks - 1) / sizes, 0, 1 - 1e-12)
    which = (relative * bins).astype(int)
    profile = []
    for b in range(bins):
        part = figures(outcomes[which == b])
        profile.append({"start": b / bins, "end": (b + 1) / bins, **asdict(part)})
    return profile
