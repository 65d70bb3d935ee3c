"""LongGenBench metrics: CR, STIC-1, STIC-2, wAvg, Len, and their breakdowns (all in percent).

- CR: mean over items of 100 * |parsed ids within 1..N| / N.
- STIC-1: yes / judged checks, pooled over items and instruction types.
- STIC-2: yes / all checks (checks whose sub-task is missing count as failures).
- wAvg: CR * STIC-2 / 100.  Len: mean word count (`len(text.split())`) of items with more than 40 blocks
  and more than 2000 words.
Checks whose judge verdict is unscored (strict parsing) are left out of both STIC denominators and counted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

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


def item_result(item: dict[str, Any], output: str, verdicts: Sequence[bool | Unscored | None]) -> ItemResult:
    """Combine a dataset item, its full output and one verdict per check (None where not judged)."""
    checks = item["checks"]
    if len(verdicts) != len(checks):
        raise ValueError(f"item {item['id']}: {len(verdicts)} verdicts for {len(checks)} checks")
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
    if not items:
        raise ValueError("no items to score")
    counts = np.fromiter((len(item.outcomes) for item in items), dtype=np.int64, count=len(items))
    outcomes = np.fromiter((o for item in items for o in item.outcomes), dtype=np.int8, count=int(counts.sum()))
    kinds = np.array([kind for item in items for kind in item.kinds], dtype=object)
    subtasks = np.fromiter((s for item in items for s in item.subtasks), dtype=np.float64, count=len(outcomes))
    sizes = np.repeat(np.array([item.num_subtasks for item in items], dtype=np.float64), counts)
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
