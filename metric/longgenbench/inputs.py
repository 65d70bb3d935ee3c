"""The `evaluate` module's inputs checked before they are used: a ValueError naming the argument, the item and the
field, never a KeyError from `evaluate`'s encoding or a string read letter by letter."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from longform_eval.common.plurals import counted

from .scoring import check_item

REFERENCE_FIELDS = ("id", "scenario", "subtask_type", "num_subtasks", "checks")  # the module's features


def is_list(value: object) -> bool:
    return isinstance(value, (Sequence, np.ndarray)) and not isinstance(value, (str, bytes))


def check_reference(item: object, where: str) -> None:
    """A dataset item as the module's features need it (every field there) and as scoring needs it (`check_item`)."""
    if isinstance(item, Mapping):
        missing = [key for key in REFERENCE_FIELDS if key not in item]
        if missing:
            raise ValueError(f"{where}[{missing[0]!r}]: missing; a LongGenBench item has {', '.join(REFERENCE_FIELDS)}")
    check_item(item, where)  # type: ignore[arg-type]


def check_references(references: object) -> None:
    if is_list(references):
        for index, item in enumerate(references):
            check_reference(item, f"references[{index}]")


def check_judge_completions(judge_completions: object, items: int) -> None:
    """None, or a list with one entry per item."""
    if judge_completions is None:
        return
    if not is_list(judge_completions):
        kind = type(judge_completions).__name__
        raise ValueError(f"judge_completions: expected a list with one list of completions per item, got a {kind}")
    if len(judge_completions) != items:  # type: ignore[arg-type]
        found = counted(len(judge_completions), "entry")  # type: ignore[arg-type]
        raise ValueError(f"judge_completions has {found} for {counted(items, 'item')}")


def item_completions(judge_completions: Sequence[Any] | None, index: int, checks: int) -> list[str | None]:
    """Item `index`'s judge completions, one per check: strings, None where a check was not judged (no completions
    at all: none judged)."""
    if judge_completions is None:
        return [None] * checks
    completions, where = judge_completions[index], f"judge_completions[{index}]"
    if not is_list(completions):
        kind = "None" if completions is None else f"a {type(completions).__name__}"
        raise ValueError(f"{where}: expected a list of {checks} completions (one per check), got {kind}")
    if len(completions) != checks:
        raise ValueError(f"{where}: {counted(len(completions), 'completion')} for {counted(checks, 'check')}")
    for position, completion in enumerate(completions):
        if completion is not None and not isinstance(completion, str):
            raise ValueError(f"{where}[{position}]: expected a completion (a string) or None, got {completion!r:.40}")
    return list(completions)


__all__ = ["check_judge_completions", "check_references", "item_completions"]
