"""The HelloEval checklist judge prompt: one call answers every checklist of a row."""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel

from longform_eval.common.guarded import SETTINGS, read_bytes

from ..words import word_tokenize
from .upstream_runs import UpstreamModel

PROMPT_FILE = "checklist_judge.yaml"


class JudgeSettings(BaseModel):
    """The paper's judge call: gpt-4o, temperature 0.8, max_tokens 4096, seed 42, up to 3 attempts."""

    model: str
    temperature: float
    top_p: float | None = None
    top_k: int | None = None
    max_tokens: int
    seed: int | None
    attempts: int
    parser: str = "upstream"


class GenerationSettings(BaseModel):
    """The paper's generation call: temperature 0.8, 16,384 new tokens (24,000 for the 16k config), or the limit of
    one of run.py's `models` (`upstream_runs`)."""

    temperature: float
    max_new_tokens: int
    max_new_tokens_16k: int
    models: list[UpstreamModel] = []
    top_p: float | None = None
    top_k: int | None = None
    seed: int | None = None


class ResponseTruncation(BaseModel):
    truncate_above: int
    keep_first: int


class ChecklistJudgePrompt(BaseModel):
    name: str
    source: str
    generation: GenerationSettings
    judge: JudgeSettings
    response_tokens: ResponseTruncation
    system: str
    user: str


@dataclass(frozen=True)
class JudgeRequest:
    """Chat messages for one row, and whether the response shown to the judge was truncated."""

    messages: list[dict[str, str]]
    truncated: bool
    num_checklist: int


@functools.cache
def load_prompt(path: str | None = None) -> ChecklistJudgePrompt:
    """The shipped prompt file, or another file of the same shape."""
    if path is None:
        text = resources.files(__package__).joinpath(PROMPT_FILE).read_text(encoding="utf-8")
    else:
        text = read_bytes(Path(path), SETTINGS).decode("utf-8")  # a regular file of at most 1 MiB
    return ChecklistJudgePrompt.model_validate(yaml.safe_load(text))


def judge_view_of_response(
    response: str, truncation: ResponseTruncation, tokens: list[str] | None = None
) -> tuple[str, bool]:
    """`" ".join(word_tokenize(response))`; over `truncate_above` tokens, only the first `keep_first` (`tokens`: the
    response's tokens, when the caller has them already)."""
    tokens = word_tokenize(response) if tokens is None else tokens
    truncated = len(tokens) > truncation.truncate_above
    if truncated:
        tokens = tokens[: truncation.keep_first]
    return " ".join(tokens), truncated


def formatted_checklists(checklists: list[str]) -> str:
    items = [{"checklist_id": i, "checklist_content": c} for i, c in enumerate(checklists)]
    return json.dumps(items, ensure_ascii=False)


def build_judge_request(
    row: dict[str, Any], response: str, prompt: ChecklistJudgePrompt | None = None, tokens: list[str] | None = None
) -> JudgeRequest:
    """Fill the judge prompt from a HelloBench row (`instruction`, `checklists`) and a model response (`tokens`: its
    `word_tokenize` tokens, when the caller has them already: the runner counts the words from the same tokens)."""
    prompt = prompt or load_prompt()
    shown, truncated = judge_view_of_response(response, prompt.response_tokens, tokens)
    checklists = list(row["checklists"])
    user = prompt.user.format(
        instruction=row["instruction"],
        response=shown,
        checklists=formatted_checklists(checklists),
        num_checklist=len(checklists),
    )
    messages = [{"role": "system", "content": prompt.system}, {"role": "user", "content": user}]
    return JudgeRequest(messages=messages, truncated=truncated, num_checklist=len(checklists))
