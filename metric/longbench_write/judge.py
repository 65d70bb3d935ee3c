"""The LongBench-Write quality judge: the prompt (upstream `judge.txt`) and the reply parsers.

Both parsers read a reply as upstream `eval_quality.py` does: if it holds "```json", the text between "```json\\n"
and the next "\\n```"; then every newline dropped; then `json.loads`. The result must be a JSON object, and every
dimension it gives must be a number in [1, 5] as upstream's `float(...)` reads it: a number, a string holding one,
or JSON `true` (`float(True)` is 1.0; `false` is 0.0, out of range). Upstream does not check the range, and
crashes on a value that `float` cannot read; here both are unscored.

- `strict` (the default): all six dimensions are required. Anything else is `Unscored(reason)`: the runner asks
  again, up to the run's judge attempts (5, upstream's bound), each unparsed reply costing one attempt, and after
  the last the item is left out of S_q and counted. Upstream's loop is not quite that: a reply that lacks a
  dimension other than the last costs two of its 5 tries (`scores = None`, then `dim not in None` raises a
  TypeError that its `except` counts again), so such replies get 3 calls there; a reply that is no JSON, or lacks
  only "Reading Experience", costs one (5 calls). Listed in scores.json `deviations`.
- `upstream_fill`: a missing dimension is read as 3, as upstream's aggregation does
  (`float(score[dim]) if dim in score else 3`). A silent default, so it is opt-in, a listed deviation, and every
  fill is named (`ParsedJudgement.filled`). A reply that is no JSON object, or gives none of the six dimensions,
  stays unscored.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass

from longform_eval.common.plurals import counted, plural

from ..unscored import Unscored
from .settings import paper_settings

PARSER_RULES = ("strict", "upstream_fill")
JSON_FENCE = re.compile(r"```json\n(.*?)\n```", re.DOTALL)
MAX_COMPLETION_CHARS = 200_000


def judgement_schema() -> dict:
    """Constrained judging: the JSON object the prompt asks for, each dimension an integer in the score range."""
    settings = paper_settings()
    low, high = (int(bound) for bound in settings.score_range)
    score = {"type": "integer", "minimum": low, "maximum": high}
    properties = {"Analysis": {"type": "string", "maxLength": 400}} | {d: score for d in settings.dimensions}
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


def judge_prompt(instruction: str, response: str, template: str | None = None) -> str:
    """The judge prompt for one (request, response): `$INST$` replaced first, then `$RESPONSE$`, as upstream."""
    template = paper_settings().prompt if template is None else template
    return template.replace("$INST$", instruction).replace("$RESPONSE$", response)


@dataclass(frozen=True)
class ParsedJudgement:
    """The six scores (or Unscored), and the dimensions the `upstream_fill` rule filled with 3."""

    scores: dict[str, float] | Unscored
    filled: tuple[str, ...] = ()


def decode_reply(completion: str) -> dict | Unscored:
    """Upstream's reading of a reply: the ```json block if any, newlines dropped, `json.loads`; a JSON object."""
    if not isinstance(completion, str):
        return Unscored(f"expected a string, got {type(completion).__name__}")
    if len(completion) > MAX_COMPLETION_CHARS:
        return Unscored(f"reply too long ({counted(len(completion), 'character')})")
    text = completion
    if "```json" in text:
        match = JSON_FENCE.search(text)
        if match is None:
            return Unscored("```json block without its closing fence")
        text = match.group(1)
    try:
        value = json.loads(text.replace("\n", ""))
    except (ValueError, RecursionError):
        return Unscored("not JSON")
    if not isinstance(value, dict):
        return Unscored(f"expected a JSON object, got {type(value).__name__}")
    return value


def dimension_value(value: object) -> float | str:
    """The score of one dimension, or why it is none."""
    if not isinstance(value, (int, float, str)):  # bool is an int: float(True) == 1.0, as upstream reads it
        return f"{json.dumps(value)[:40]} is not a number"
    try:
        score = float(value.strip() if isinstance(value, str) else value)
    except (ValueError, OverflowError):
        return f"{json.dumps(value)[:40]} is not a number"
    low, high = paper_settings().score_range
    if not math.isfinite(score) or not low <= score <= high:
        return f"{score:g} is outside [{low:g}, {high:g}]"
    return score


def parse_judgement(completion: str, rule: str = "strict") -> ParsedJudgement:
    """The six dimension scores of one judge reply under `rule` ("strict" or "upstream_fill"), or Unscored."""
    if rule not in PARSER_RULES:
        raise ValueError(f"unknown parser rule {rule!r}; use one of {', '.join(PARSER_RULES)}")
    reply = decode_reply(completion)
    if isinstance(reply, Unscored):
        return ParsedJudgement(reply)
    settings = paper_settings()
    missing = tuple(dimension for dimension in settings.dimensions if dimension not in reply)
    if missing and rule == "strict":
        return ParsedJudgement(Unscored(f"{plural(len(missing), 'missing dimension')}: {', '.join(missing)}"))
    if len(missing) == len(settings.dimensions):
        return ParsedJudgement(Unscored("none of the six dimensions given"))
    scores: dict[str, float] = {}
    for dimension in settings.dimensions:
        value = settings.judge.missing_dimension_fill if dimension in missing else dimension_value(reply[dimension])
        if isinstance(value, str):
            return ParsedJudgement(Unscored(f"{dimension}: {value}"))
        scores[dimension] = value
    return ParsedJudgement(scores, missing)
