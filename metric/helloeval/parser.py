"""Parse a HelloEval judge completion into one score per checklist, or Unscored with the reason.

Two rules (`parse_verdict`): `upstream`, HelloBench's own (the paper's default), and `lenient`, which also takes
what upstream rejects and names the rescue. Lenient accepts a list of `{"checklist_id", "reason",
"evaluation_score"}` objects, as JSON or as a Python literal (`ast.literal_eval`, never `eval`), optionally inside
a code fence or surrounded by prose. Valid only with exactly `num_checklist` items whose scores cast to a finite
float in [0, 1]. Scores are kept as given (not snapped to the five levels), aligned with the checklists by
position, as upstream does. A score is read with `float(...)` as upstream reads it, so JSON `true` / `false` are 1.0 /
0.0 (`float(True)`); anything `float` cannot read is unscored (upstream's llm_judge.py crashes on it).
"""

from __future__ import annotations

import ast
import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from longform_eval.common.plurals import counted

from ..unscored import Unscored

MAX_COMPLETION_CHARS = 200_000
FENCE = re.compile(r"```[a-zA-Z0-9_+-]*\s*\n?(.*?)```", re.DOTALL)
SCORE_KEY = "evaluation_score"
SCORE_PAIR = re.compile(r"""["']evaluation_score["']\s*:\s*["']?([^,"'}\s]*)""")


PARSER_RULES = ("upstream", "lenient")
SCORE_LEVELS = (0, 0.25, 0.5, 0.75, 1)
REASON_CHARS = 160
NO_QUOTE_OR_BACKSLASH = r'^[^"\\]*$'  # upstream drops every backslash before json.loads: an escape would break it


def verdict_schema(num_checklist: int, reason_chars: int = REASON_CHARS) -> dict[str, Any]:
    """The paper's reply form as a JSON schema: exactly `num_checklist` objects, each score one of the five levels.

    The reason is kept short (constrained judging is for small, slow judges) and free of quotes and backslashes,
    so that the upstream parser reads every reply the schema allows.
    """
    item = {
        "type": "object",
        "properties": {
            "checklist_id": {"type": "integer"},
            "reason": {"type": "string", "maxLength": reason_chars, "pattern": NO_QUOTE_OR_BACKSLASH},
            SCORE_KEY: {"enum": list(SCORE_LEVELS)},
        },
        "required": ["checklist_id", "reason", SCORE_KEY],
        "additionalProperties": False,
    }
    return {"type": "array", "items": item, "minItems": num_checklist, "maxItems": num_checklist}


@dataclass(frozen=True)
class ParsedVerdict:
    """The scores (or Unscored), and which lenient rescue produced them (None: the upstream rule parses it)."""

    verdict: list[float] | Unscored
    rescue: str | None = None


def parse_verdict(completion: str, num_checklist: int, rule: str = "upstream") -> ParsedVerdict:
    """`upstream`: HelloBench's llm_judge.py rule: drop code-fence markers, every newline and every backslash,
    then `json.loads`; a list of exactly `num_checklist` items, each score a float in [0, 1] (compute.py's check).
    `lenient`: what upstream parses, else the rescues of `parse_checklist_verdict`, named in `rescue`.
    """
    if rule not in PARSER_RULES:
        raise ValueError(f"unknown parser rule {rule!r}; use one of {', '.join(PARSER_RULES)}")
    strict = upstream_verdict(completion, num_checklist)
    if rule == "upstream" or not isinstance(strict, Unscored):
        return ParsedVerdict(strict)
    lenient = parse_checklist_verdict(completion, num_checklist)
    return ParsedVerdict(lenient, None if isinstance(lenient, Unscored) else rescue_name(completion, num_checklist))


def upstream_verdict(completion: str, num_checklist: int) -> list[float] | Unscored:
    if not isinstance(completion, str):
        return Unscored(f"expected a string, got {type(completion).__name__}")
    if len(completion) > MAX_COMPLETION_CHARS:
        return Unscored(f"completion too long ({counted(len(completion), 'character')})")
    cleaned = completion
    for marker in ("```json", "```python", "```", "\n", "\\"):
        cleaned = cleaned.replace(marker, "")
    try:
        items = json.loads(cleaned)
    except (ValueError, RecursionError):
        return Unscored("not JSON (upstream rule)")
    if not isinstance(items, list):
        return Unscored(f"expected a JSON list, got {type(items).__name__}")
    return scores_of(items, num_checklist)


def rescue_name(completion: str, num_checklist: int) -> str:
    """Which lenient step saved a completion that the upstream rule rejects."""
    for name, candidate in (("code_fence", c) for c in FENCE.findall(completion)):
        if isinstance(decode(candidate.strip()), list):
            return name if isinstance(json_list(candidate.strip()), list) else "python_literal"
    whole = completion.strip()
    if isinstance(decode(whole), list):
        return "python_literal" if json_list(whole) is None else "json_escapes"
    start, end = completion.find("["), completion.rfind("]")
    if 0 <= start < end and isinstance(decode(completion[start : end + 1]), list):
        return "prose_around_list"
    return "score_pattern"


def json_list(text: str) -> list | None:
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, list) else None


def parse_checklist_verdict(completion: str | Sequence[Any], num_checklist: int) -> list[float] | Unscored:
    """Scores of one judge completion (a string, or an already-decoded list), by the lenient rules."""
    items = completion if isinstance(completion, (list, tuple)) else decode_list(completion)
    if isinstance(items, Unscored):
        pairs = SCORE_PAIR.findall(completion) if "too long" not in items.reason else []
        if len(pairs) != num_checklist:
            return items
        items = [{SCORE_KEY: value} for value in pairs]
    return scores_of(items, num_checklist)


def scores_of(items: Sequence[Any], num_checklist: int) -> list[float] | Unscored:
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
        return Unscored(f"completion too long ({counted(len(text), 'character')})")
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
    try:
        score = float(raw.strip() if isinstance(raw, str) else raw)
    except (TypeError, ValueError, OverflowError):
        return Unscored(f"score {str(raw)[:40]!r} is not a number")
    if not math.isfinite(score) or not 0.0 <= score <= 1.0:
        return Unscored(f"score {score!r} is outside [0, 1]")
    return score
