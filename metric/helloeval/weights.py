"""HelloBench's human-fitted checklist weights, shipped with the package (MIT, from upstream)."""

from __future__ import annotations

import functools
import json
from importlib import resources

WEIGHTS_FILE = "checklist_weights.json"
# HelloBench's five tasks, in the paper's order (dataset_builder.hellobench.TASKS names the same; a test checks)
TASKS = ("open_ended_qa", "summarization", "chat", "text_completion", "heuristic_text_generation")
__all__ = ["TASKS", "WEIGHTS_FILE", "flat_weights", "task_of_subcategory", "weights_by_task"]


@functools.cache
def weights_by_task() -> dict[str, dict[str, tuple[float, ...]]]:
    """task -> subcategory -> weights (aligned with the checklists, summing to 100)."""
    document = json.loads(resources.files(__package__).joinpath(WEIGHTS_FILE).read_text(encoding="utf-8"))
    return {task: {sub: tuple(w) for sub, w in subs.items()} for task, subs in document["weights"].items()}


def flat_weights(grouped: dict[str, dict[str, tuple[float, ...]]] | None = None) -> dict[str, tuple[float, ...]]:
    grouped = grouped or weights_by_task()
    return {sub: weights for subs in grouped.values() for sub, weights in subs.items()}


def task_of_subcategory(grouped: dict[str, dict[str, tuple[float, ...]]] | None = None) -> dict[str, str]:
    if not grouped:
        return dict(published_task_of())
    return {sub: task for task, subs in grouped.items() for sub in subs}


@functools.cache
def published_task_of() -> dict[str, str]:
    """`task_of_subcategory()` of the published weights, built once (every row of a scores.json is checked by it)."""
    return {sub: task for task, subs in weights_by_task().items() for sub in subs}
