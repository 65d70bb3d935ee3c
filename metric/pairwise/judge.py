"""longform-eval's pairwise judge: reasons first, then one verdict line; and its parser."""

from __future__ import annotations

import functools
import re

from pydantic import BaseModel

from longform_eval.common.bounded_json import loads_json

from ..package_yaml import read_package_yaml
from ..settings_blocks import SamplingSettings
from ..unscored import Unscored
from .outcomes import ALIASES, Outcome, single_score_problem

PROMPT_FILE = "pairwise_judge.yaml"
VERDICT_LINE = re.compile(r"^[\s*_#>]*verdict[\s*_]*[:：][\s*_\[]*(?P<value>[^\n\]*_]*)", re.IGNORECASE | re.MULTILINE)
SCORE_LINE = re.compile(r"^[\s*_#>]*score[\s*_]*[:：][\s*_\[]*(?P<value>[^\n\]*_]*)", re.IGNORECASE | re.MULTILINE)
VERDICT_LABELS = ("A", "B", "equally good", "equally bad")
# Constrained judging: the reply is one of the four labels as a JSON string, or a whole score as a JSON number.
VERDICT_SCHEMA = {"type": "string", "enum": list(VERDICT_LABELS)}
SCORE_SCHEMA = {"type": "integer", "enum": list(range(1, 11))}


class PairwiseJudgeSettings(BaseModel):
    model: str
    chat_template: bool
    temperature: float
    max_tokens: int
    seed: int
    attempts: int
    both_orders: bool
    parser: str


class GenerationSettings(SamplingSettings):
    max_new_tokens: int


class SingleScorePrompt(BaseModel):
    system: str
    user: str


class PairwiseJudgePrompt(BaseModel):
    name: str
    source: str
    generation: GenerationSettings
    judge: PairwiseJudgeSettings
    system: str
    user: str
    single_score: SingleScorePrompt


@functools.cache
def load_pairwise_prompt() -> PairwiseJudgePrompt:
    return read_package_yaml(__package__, PROMPT_FILE, PairwiseJudgePrompt)


def pairwise_messages(question: str, answer_a: str, answer_b: str) -> list[dict[str, str]]:
    prompt = load_pairwise_prompt()
    user = prompt.user.format(question=question, answer_a=answer_a, answer_b=answer_b)
    return [{"role": "system", "content": prompt.system}, {"role": "user", "content": user}]


def single_score_messages(question: str, answer: str) -> list[dict[str, str]]:
    prompt = load_pairwise_prompt().single_score
    return [
        {"role": "system", "content": prompt.system},
        {"role": "user", "content": prompt.user.format(question=question, answer=answer)},
    ]


def json_value(completion: str) -> object:
    """The reply read as one JSON value (what a constrained judge gives), or None when it is not one."""
    try:
        return loads_json(completion)  # bounded: a reply nested 100,000 deep is no verdict, not a RecursionError
    except (TypeError, ValueError):
        return None


def parse_verdict_reply(completion: str) -> Outcome | Unscored:
    """A reply that is one JSON label (constrained judging), else the last `Verdict:` line."""
    value = json_value(completion)
    if isinstance(value, str) and value in VERDICT_LABELS:
        return ALIASES[value.lower()]
    return parse_pairwise_verdict(completion)


def parse_single_score(completion: str) -> float | Unscored:
    """A reply that is one JSON number (constrained judging), else the number on the last `Score:` line, 1..10."""
    if not isinstance(completion, str):
        return Unscored(f"expected a string, got {type(completion).__name__}")
    value = json_value(completion)
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        matches = list(SCORE_LINE.finditer(completion))
        if not matches:
            return Unscored("no 'Score:' line")
        text = matches[-1].group("value").strip().rstrip(".").split("/")[0].strip()
        try:
            value = float(text)
        except ValueError:
            return Unscored(f"score {text[:40]!r} is not a number")
    problem = single_score_problem(value)
    return Unscored(f"score {problem}") if problem else float(value)


def parse_pairwise_verdict(completion: str) -> Outcome | Unscored:
    """The value of the last `Verdict:` line; anything but A, B, equally good or equally bad is unscored."""
    if not isinstance(completion, str):
        return Unscored(f"expected a string, got {type(completion).__name__}")
    matches = list(VERDICT_LINE.finditer(completion))
    if not matches:
        return Unscored("no 'Verdict:' line")
    value = matches[-1].group("value").strip().strip(".").strip().lower()
    value = re.sub(r"^(answer|response)\s+", "", value)
    if value in ALIASES and value not in ("tie", "eg", "eb"):
        return ALIASES[value]
    return Unscored(f"unknown verdict {value[:40]!r}")
