"""What upstream HelloBench (Quehry/HelloBench @ d403282) did per model, and the differences a run lists.

`run.py` has one function per model it generated with, each with its own output limit: 4,096 new tokens for GPT-4o,
GPT-4-turbo and Gemma-2, 2,048 for MAP-Neo, 16,384 for the others (Suri and GLM-4-9B-Chat-1M: 16,384 tokens of
prompt and output together, `max_length`). `checklist_judge.yaml` lists them (`generation.models`); the main
configs take the limit of the model a run names as their default (length-constrained configs keep 16,384 / 24,000,
as run.py's length-constrained functions do for every model they ran).

`llm_judge.py` asks the judge again (3 calls at most) only when the reply is no JSON or has the wrong number of
items; a reply whose score is outside [0, 1] is kept, and compute.py drops that row (`assert 0 <= score <= 1`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict


class UpstreamModel(BaseModel):
    """One model run.py generated with: how to recognise its name, its limit, and what else it did differently."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    pattern: str  # a regular expression, searched in the lower-cased last part of the model's name or path
    max_new_tokens: int
    note: str | None = None  # what run.py did differently for this model besides the limit (a listed deviation)


def upstream_model(model: str | None, models: Sequence[UpstreamModel]) -> UpstreamModel | None:
    """The first of `models` whose pattern matches `model` (e.g. "gpt-4o-2024-08-06", "/models/gemma-2-9b-it")."""
    if not model:
        return None
    name = model.rstrip("/").rsplit("/", 1)[-1].lower()
    return next((known for known in models if re.search(known.pattern, name)), None)


def limits_line(models: Sequence[UpstreamModel]) -> str:
    """ "4096 for GPT-4o, GPT-4-turbo, Gemma-2; 2048 for MAP-Neo; 16384 for ..." in the order of `models`."""
    by_limit: dict[int, list[str]] = {}
    for known in models:
        by_limit.setdefault(known.max_new_tokens, []).append(known.name)
    return "; ".join(f"{limit} for {', '.join(names)}" for limit, names in by_limit.items())


def model_deviations(model: str | None, models: Sequence[UpstreamModel], default: int) -> list[str]:
    """Lines for `deviations`: what run.py did differently for a model it ran. A model it did not run has the paper's
    default limit (`default`) as its paper value: a run at that limit deviates in nothing, and one at another limit
    is listed by the generic comparison of settings (`generation max_new_tokens = N (paper: default)`). None: the
    model is not known (imported generations), nothing to say."""
    known = upstream_model(model, models) if model else None
    return [f"generation for {known.name}: {known.note}"] if known is not None and known.note else []


def judge_retry_deviation() -> str:
    """The `deviations` line of what makes the runner ask the judge again."""
    return (
        "judge retried also on a score outside [0, 1] or not a number (paper: llm_judge.py retries only a reply "
        "that is no JSON or has the wrong number of items; an out-of-range score is kept and compute.py drops "
        "the row; a score float() cannot read stops the script)"
    )
