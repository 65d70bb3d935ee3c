"""Parse a HelloEval judge completion into one score per checklist, or Unscored with the reason.

Accepted: a list of `{"checklist_id", "reason", "evaluation_score"}` objects, as JSON or as a Python literal
(`ast.literal_eval`, never `eval`), optionally inside a code fence or surrounded by prose. Valid only with
exactly `num_checklist` items whose scores cast to a finite float in [0, 1]. Scores are kept as given (not
snapped to the five levels), aligned with the checklists by position, as upstream does.
"""

from __future__ import annotations

import ast
import json
import math
import re
from collections.abc import Sequence
from typing import Any

from ..unscored import Unscored

MAX_COMPLETION_CHARS = 200_000
FENCE = re.compile(r"```[a-zA-Z0-9_+-]*\s*\n?(.*?)```", re.DOTALL)
SCORE_KEY = "evaluation_score"
SCORE_PAIR = re.compile(r"""["']evaluation_score["']\s*:\s*["']?([^,"'}\s]*)""")


def parse_checklist_verdict(completion: str | Sequence[Any], num_checklist: int) -> list[float] | Unscored:
    """Scores of one judge completion (a string, or an already-decoded list)."""
    items = completion if isinstance(completion, (list, tuple)) else decode_list(completion)
    if isinstance(items, Unscored):
        pairs = SCORE_PAIR.findall(completion) if "too long" not in items.reason else []
        if len(pairs) != num_checklist:
            return items
        items = [{SCORE_KEY: value} for value in pairs]
    if len(items) != num_checklist:
        return Unscored(f"expected {num_checklist} checklist verdicts, got {len(items)}")
    scores = []
    for position, item in enumerate(items):
        score = item_score(item)
        if isinstance(score, Unscored):
            return Unscored(f"item {position}: {score.reason}")
        scores.append(score)
    return scores


def decode_list(text: str) -> list[Any] | Unscored:
    if not isinstance(text, str):
        return Unscored(f"expected a string, got {type(text).__name__}")
    if len(text) > MAX_COMPLETION_CHARS:
        return Unscored(f"completion too long ({len(text)} characters)")
    for candidate in candidates(text):
        value = decode(candidate)
        if isinstance(value, list):
            return value
    return Unscored("no JSON or Python list found")


def candidates(text: str) -> list[str]:
    """The fenced blocks, the whole text, then the span from the first '[' to the last ']'."""
    found = [match.strip() for match in FENCE.findall(text)]
    found.append(text.strip())
    start, end = text.find("["), text.rfind("]")
    if 0 <= start < end:
        found.append(text[start : end + 1])
    return found


def decode(candidate: str) -> Any:
    try:
        return json.loads(candidate)
    except (ValueError, RecursionError):
        pass
    try:
        return ast.literal_eval(candidate)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None


def item_score(item: Any) -> float | Unscored:
    if not isinstance(item, dict):
        return Unscored(f"expected an object, got {type(item).__name__}")
    if SCORE_KEY not in item:
        return Unscored(f"no '{SCORE_KEY}'")
    raw = item[SCORE_KEY]
    if isinstance(raw, bool):
        return Unscored(f"score {raw!r} is not a number")
    try:
        score = float(raw.strip() if isinstance(raw, str) else raw)
    except (TypeError, ValueError):
        return Unscored(f"score {str(raw)[:40]!r} is not a number")
    if not math.isfinite(score) or not 0.0 <= score <= 1.0:
        return Unscored(f"score {score!r} is outside [0, 1]")
    return score
