"""The judge calls of one pairwise item and the outcome they give, in either judge mode.

An item is a question, the answer under test and the answer it is compared with (the baseline's). `pairwise` mode
asks for one of four labels in each order (`ab`: the tested answer shown as A, `ba`: shown as B) and combines the
two with `combine_orders` (orders that disagree make a tie). `single` mode scores each answer 1-10 on its own
(`model`, `baseline`) and maps the two scores with TencentLLMEval's rule. Every key carries a hash of the baseline
answer, so that a changed baseline makes new calls instead of reusing verdicts on the old one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from longform_eval.common.hashing import text_hash
from longform_eval.metric import Unscored
from longform_eval.metric.pairwise import (
    SCORE_SCHEMA,
    VERDICT_SCHEMA,
    Outcome,
    as_outcome,
    combine_orders,
    from_single_scores,
    pairwise_messages,
    parse_single_score,
    parse_verdict_reply,
    single_score_messages,
)

from ...backends.base import Request
from ..base import JudgeCall

Mode = Literal["pairwise", "single"]
FIRST, SECOND = "ab", "ba"
SCORED_PARTS = ("model", "baseline")


@dataclass(frozen=True)
class PairItem:
    id: str
    question: str
    answer: str
    baseline: str

    @property
    def tag(self) -> str:
        return text_hash(self.baseline)[:8]


def judge_key(item_id: str, part: str, tag: str) -> str:
    """`<id>#ab@<baseline hash>`: the item, the part (order or scored answer), the baseline answer judged."""
    return f"{item_id}#{part}@{tag}"


def parts(mode: Mode, both_orders: bool = True) -> tuple[str, ...]:
    if mode == "single":
        return SCORED_PARTS
    return (FIRST, SECOND) if both_orders else (FIRST,)


def messages(item: PairItem, part: str) -> list[dict[str, str]]:
    if part == FIRST:
        return pairwise_messages(item.question, item.answer, item.baseline)
    if part == SECOND:
        return pairwise_messages(item.question, item.baseline, item.answer)
    return single_score_messages(item.question, item.answer if part == "model" else item.baseline)


def pair_calls(item: PairItem, mode: Mode, both_orders: bool = True) -> list[JudgeCall]:
    schema = SCORE_SCHEMA if mode == "single" else VERDICT_SCHEMA
    calls = []
    for part in parts(mode, both_orders):
        key = judge_key(item.id, part, item.tag)
        request = Request(key=key, messages=tuple(messages(item, part)))
        calls.append(JudgeCall(key, item.id, request, {"part": part, "baseline": item.tag}, schema))
    return calls


def parse_reply(part: str, completion: str) -> Outcome | float | Unscored:
    return parse_single_score(completion) if part in SCORED_PARTS else parse_verdict_reply(completion)


@dataclass(frozen=True)
class ItemVerdict:
    """The item's outcome from the tested answer's side, and each part's verdict (None where it is unscored)."""

    outcome: Outcome | Unscored
    parts: dict[str, Any]


def stored(value: Any, part: str) -> Outcome | float | Unscored:
    """A verdict as the runner hands it back: an Outcome, its label read from JSON, a score, or Unscored."""
    if isinstance(value, Unscored) or part in SCORED_PARTS:
        return value
    return as_outcome(value)


def item_verdict(
    item_id: str, tag: str, verdicts: Mapping[str, Any], mode: Mode, both_orders: bool = True
) -> ItemVerdict:
    found = {
        part: stored(verdicts.get(judge_key(item_id, part, tag), Unscored("not judged")), part)
        for part in parts(mode, both_orders)
    }
    outcome = unscored_part(found)
    if outcome is None and mode == "single":
        outcome = from_single_scores(found["model"], found["baseline"])
    elif outcome is None:
        outcome = combine_orders(found[FIRST], found[SECOND]) if both_orders else found[FIRST]
    shown = {part: None if isinstance(v, Unscored) else getattr(v, "value", v) for part, v in found.items()}
    return ItemVerdict(outcome, shown)


def unscored_part(found: dict[str, Any]) -> Unscored | None:
    for part, value in found.items():
        if isinstance(value, Unscored):
            return Unscored(f"{part}: {value.reason}")
    return None
