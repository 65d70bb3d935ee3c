"""Cut a LongGenBench output into sub-tasks and match the checks to them (the paper's rule)."""

from __future__ import annotations

import functools
import numbers
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

SEPARATOR = "#*#"


@functools.cache
def header_pattern(subtask_type: str) -> re.Pattern[str]:
    return re.compile(rf"{re.escape(subtask_type)} (\d+)")


def full_output(prefix: str, completion: str) -> str:
    """The paper scores `prefix + completion`: the first header is already at the end of the prompt."""
    return prefix + completion


def split_subtasks(output: str, subtask_type: str) -> dict[int, str]:
    """Blocks between `#*#` separators keyed by the first `"{type} N"` in each (case-sensitive).

    The first block with a given id wins; blocks without a header are dropped.
    """
    pattern = header_pattern(subtask_type)
    blocks: dict[int, str] = {}
    for block in output.split(SEPARATOR):
        match = pattern.search(block)
        if match:
            blocks.setdefault(int(match.group(1)), block)
    return blocks


def count_blocks(output: str) -> int:
    """The pieces of `output.split("#*#")`, empty ones included, as upstream counts them for the Len filter
    (static.ipynb: `len(item['output_blocks']) > 40`)."""
    return len(output.split(SEPARATOR))


@dataclass(frozen=True)
class MatchedCheck:
    """A check with the block it is judged against, or `block=None` when its sub-task is missing."""

    index: int
    kind: str
    subtask: int
    description: str
    block: str | None


def match_checks(checks: Sequence[dict[str, Any]], blocks: dict[int, str]) -> list[MatchedCheck]:
    """A check is judged only if its sub-task id (`int(key)`) is among the parsed ids."""
    return [
        MatchedCheck(i, check["kind"], int(check["subtask"]), check["description"], blocks.get(int(check["subtask"])))
        for i, check in enumerate(checks)
    ]


def completion_rate(blocks: dict[int, str], num_subtasks: int) -> float:
    """100 * share of the expected sub-task ids (1..num_subtasks) present in the output."""
    if isinstance(num_subtasks, bool) or not isinstance(num_subtasks, numbers.Integral) or num_subtasks <= 0:
        raise ValueError(f"num_subtasks must be a positive integer, got {num_subtasks!r}")
    return 100.0 * sum(1 for i in blocks if 1 <= i <= num_subtasks) / num_subtasks
