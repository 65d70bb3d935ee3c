"""The ceilings of every input a Space takes, in one table, checked before any work starts.

The Spaces and their inputs: a metric Space's `/compute` takes one JSON field per input column (`predictions`,
`references`) and one JSON object of the module's other arguments (`word_counts`, `judge_completions`, `parser`,
`verdict_rule`, `model_a`, `model_b`, `bootstrap_rounds`, `seed`: the pairwise metric bounds its rounds, rounds x
comparisons, rounds x models and models); the arena takes a task filter (a dropdown, checked by gradio against its
choices), a subcategory filter and an annotator id (text), and a vote (a button); its annotation tab takes a task
filter, the checklist levels (radios, checked by gradio) and an overall score (a slider, checked by gradio against
0-10); the run viewer takes dropdowns and a search text. Every JSON field is also parsed
within `common.bounded_json`'s bounds (nesting depth, integer length). A value over its ceiling is refused with one
line naming the input and its ceiling. A ceiling on work is one the computation meets well inside its Space's time
limit on 2 vCPU, measured (`bench/space_ceilings.py`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from longform_eval.common.errors import LongformEvalError


@dataclass(frozen=True)
class Ceiling:
    limit: int
    unit: str
    covers: str


CEILINGS: dict[str, Ceiling] = {
    # metric Spaces (HelloBench has 647 prompts; its longest released answer has 147,141 characters)
    "field": Ceiling(20_000_000, "characters", "one JSON field of a metric Space, checked before it is parsed"),
    "entries": Ceiling(20_000, "entries", "any JSON list in a metric Space's fields: a column, a list argument"),
    "text": Ceiling(1_000_000, "characters", "any string in a metric Space's fields: an answer, a judge completion"),
    # The pairwise metric checks these itself, for the Python user too (the arena's leaderboard uses 1,000 rounds).
    # Each bootstrap round refits Bradley-Terry, costing more with more comparisons and models (100 models: 35-65 ms
    # under load; a 200-model fit ~100 ms, models x models arrays). Measured with bench/space_ceilings.py on 2 shared
    # cores (bench/RESULTS.md, 2026-11-27): the largest requests these allow took 1-4 s, at most 10 s on busy cores,
    # well inside COMPUTE_SECONDS (60 s); 10,000 rounds alone, the old ceiling, ran into it.
    "bootstrap_rounds": Ceiling(
        1_000, "rounds", "the pairwise metric's bootstrap rounds (1,000 x 8 comparisons: 0.7 s)"
    ),
    "bootstrap_work": Ceiling(
        2_000_000, "rounds x comparisons", "the pairwise bootstrap's rounds times comparisons (1,000 x 2,000: 1-9 s)"
    ),
    "bootstrap_models": Ceiling(
        20_000, "rounds x models", "the pairwise bootstrap's rounds times models (200 x 100 on 10,000 rows: 1-13 s)"
    ),
    "models": Ceiling(100, "models", "the pairwise metric's distinct model names (its fit is models x models)"),
    # the arena, its annotation tab and the viewer
    "id": Ceiling(64, "characters", "an annotator id, a session id, a comparison token"),
    "filter": Ceiling(64, "characters", "the arena's subcategory filter (the longest subcategory has 22)"),
    "search": Ceiling(500, "characters", "the viewer's search text"),
    "upload": Ceiling(1_000_000, "bytes", "a file sent to gradio's upload route (no app has an upload field)"),
}


class OverCeiling(LongformEvalError, ValueError):
    """An input over its ceiling; the message names the input and the ceiling."""


def limit_of(name: str) -> int:
    return CEILINGS[name].limit


def check_ceiling(what: str, size: int, name: str) -> None:
    """Raise OverCeiling naming `what` unless `size` is within the ceiling `name` of CEILINGS."""
    ceiling = CEILINGS[name]
    if size > ceiling.limit:
        raise OverCeiling(f"{what}: {size:,} {ceiling.unit}, over its ceiling of {ceiling.limit:,}")


def check_field_text(what: str, text: str) -> None:
    """A JSON field, before it is parsed."""
    check_ceiling(what, len(text), "field")


def check_json_value(what: str, value: Any) -> None:
    """Every list in `value` within the `entries` ceiling and every string (object keys too) within `text`; the
    message names the place (`references[3]['checks']`). Walked without recursion, places spelled only when refused."""
    if isinstance(value, str):
        check_ceiling(what, len(value), "text")
    pending: list[tuple[Any, Place]] = [(value, what)] if isinstance(value, list | dict) else []
    while pending:
        item, place = pending.pop()
        if isinstance(item, list) and len(item) > CEILINGS["entries"].limit:
            check_ceiling(spelled(place), len(item), "entries")
        children = list(enumerate(item)) if isinstance(item, list) else [*item.items(), *((KEY, k) for k in item)]
        check_strings(place, children)
        pending.extend((child, (place, step)) for step, child in children if child.__class__ in (list, dict))


def check_strings(place: Place, children: list[tuple[Any, Any]]) -> None:
    """The strings among `children` ((step, value) pairs of the container at `place`) within the `text` ceiling."""
    limit = CEILINGS["text"].limit
    for step, child in children:
        if child.__class__ is str and len(child) > limit:
            check_ceiling(spelled((place, step)), len(child), "text")


KEY = object()  # the step to an object's key, spelled " key"
Place = str | tuple  # the field's name, or (the parent's place, an index or key)


def spelled(place: Place) -> str:
    """`predictions[3]['checks']` from the linked steps of `place`."""
    steps = []
    while isinstance(place, tuple):
        place, step = place
        steps.append(" key" if step is KEY else f"[{step!r}]")
    return place + "".join(reversed(steps))
