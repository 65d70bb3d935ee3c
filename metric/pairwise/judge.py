"""longform-eval's pairwise judge: reasons first, then one verdict line; and its parser."""

from __future__ import annotations

import functools
import re

from pydantic import BaseModel

from ..package_yaml import read_package_yaml
from ..unscored import Unscored
from .outcomes import ALIASES, Outcome

PROMPT_FILE = "pairwise_judge.yaml"
VERDICT_LINE = re.compile(r"^[\s*_#>]*verdict[\s*_]*[:：][\s*_\[]*(?P<value>[^\n\]*_]*)", re.IGNORECASE | re.MULTILINE)


class PairwiseJudgeSettings(BaseModel):
    temperature: float
    max_tokens: int
    seed: int
    attempts: int
    both_orders: bool


class PairwiseJudgePrompt(BaseModel):
    name: str
    source: str
    judge: PairwiseJudgeSettings
    system: str
    user: str


@functools.cache
def load_pairwise_prompt() -> PairwiseJudgePrompt:
    return read_package_yaml(__package__, PROMPT_FILE, PairwiseJudgePrompt)


def pairwise_messages(question: str, answer_a: str, answer_b: str) -> list[dict[str, str]]:
    prompt = load_pairwise_prompt()
    user = prompt.user.format(question=question, answer_a=answer_a, answer_b=answer_b)
    return [{"role": "system", "content": prompt.system}, {"role": "user", "content": user}]


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
