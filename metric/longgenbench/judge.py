"""The LongGenBench yes/no judge: prompt and verdict parsers."""

from __future__ import annotations

import re
from typing import Literal

from ..unscored import Unscored
from .settings import paper_settings

VerdictRule = Literal["paper", "strict"]
VERDICT_RULES = ("paper", "strict")
# The paper's judge call, as `longgenbench.yaml` states it (the one place the settings live).
JUDGE_SETTINGS = paper_settings().judge.model_dump(
    include={"model", "temperature", "top_p", "max_tokens", "seed", "chat_template"}
)
YES_NO_SCHEMA = {"type": "string", "enum": ["yes", "no"]}  # constrained judging: the reply is "yes" or "no"
LEADING_WORD = re.compile(r"^[\s\"'`*_#>.:(\[-]*([a-zA-Z]+)")


def judge_prompt(block: str, description: str) -> str:
    return (
        "Context: "
        + block
        + "### Instruction: Does this context include the "
        + description
        + "? Please answer with 'yes' or 'no' only."
    )


def parse_yes_no(completion: str, rule: VerdictRule = "paper") -> bool | Unscored:
    """`paper`: yes iff "yes" occurs anywhere in the lower-cased completion (never unscored).

    `strict`: the first word (after quotes, markdown and punctuation) must be yes or no; anything else is
    unscored. "yes" inside "eyes" or "no, yes" counts as yes under the paper rule.
    """
    if not isinstance(completion, str):
        return Unscored(f"expected a string, got {type(completion).__name__}")
    if rule == "paper":
        return "yes" in completion.lower()
    if rule != "strict":
        raise ValueError(f"unknown verdict rule {rule!r}; use 'paper' or 'strict'")
    match = LEADING_WORD.match(completion)
    word = match.group(1).lower() if match else ""
    if word in ("yes", "no"):
        return word == "yes"
    return Unscored(f"does not start with yes or no: {completion[:40]!r}")
