"""Seeded generator of fresh LongGenBench items, consistent by construction.

Every item has 5 single, 1 range and 1 periodic instruction. No position is given two uses, every position
lies inside 1..num_subtasks (weeks stop at 52: no week 53), and ranges stay inside the year or building.
The same seed gives the same items.
"""

from __future__ import annotations

import datetime
import random
from dataclasses import dataclass
from typing import Any

from longform_eval.common.arg_types import Ceiling

from .longgenbench_templates import SCENARIO_TEMPLATES

PER_SCENARIO = Ceiling(
    10_000, "100 times the published 100 per scenario; every item, about 3 KB, is held in memory while it is built"
)
YEAR = 2018  # January 1st 2018 is a Monday, as in the released items.
SCENARIOS = ("diary", "menu", "skyscraper", "urban_planning")
SINGLES = 5


@dataclass(frozen=True)
class Layout:
    """How one scenario is cut into sub-tasks in one setting."""

    subtask_type: str
    num_subtasks: int
    words_per_entry: int
    grid_width: int | None = None

    @property
    def unit(self) -> str:
        return self.subtask_type.split()[-1]

    @property
    def is_calendar(self) -> bool:
        return self.unit in ("Week", "Day")


LAYOUTS = {
    ("short", "diary"): Layout("Week", 52, 150),
    ("short", "menu"): Layout("Menu Week", 52, 150),
    ("short", "skyscraper"): Layout("Floor", 100, 120),
    ("short", "urban_planning"): Layout("Block", 100, 120, grid_width=10),
    ("long", "diary"): Layout("Day", 365, 60),
    ("long", "menu"): Layout("Menu Day", 365, 60),
    ("long", "skyscraper"): Layout("Floor", 300, 80),
    ("long", "urban_planning"): Layout("Block", 361, 60, grid_width=19),
}


def ordinal(day: int) -> str:
    suffix = "th" if 11 <= day % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
    return f"{day}{suffix}"


def date_of(day_of_year: int) -> datetime.date:
    return datetime.date(YEAR, 1, 1) + datetime.timedelta(days=day_of_year - 1)


def spoken_date(day_of_year: int) -> str:
    date = date_of(day_of_year)
    return f"{date.strftime('%B')} {ordinal(date.day)}"


def header(layout: Layout, position: int) -> str:
    """The sub-task header, e.g. 'Week 3 (January 15th - January 21st)' or 'Block 12 (1, 1)'."""
    name = f"{layout.subtask_type} {position}"
    if layout.unit == "Week":
        return f"{name} ({spoken_date(7 * position - 6)} - {spoken_date(7 * position)})"
    if layout.unit == "Day":
        return f"{name} ({spoken_date(position)})"
    if layout.grid_width:
        x, y = grid_xy(layout, position)
        return f"{name} ({x}, {y})"
    return name


def grid_xy(layout: Layout, block: int) -> tuple[int, int]:
    y, x = divmod(block - 1, layout.grid_width)
    return x, y


def block_id(layout: Layout, x: int, y: int) -> int:
    return y * layout.grid_width + x + 1


@dataclass
class Plan:
    """Positions drawn for one item; all sets are pairwise disjoint."""

    periodic_start: int
    periodic_interval: int
    periodic: list[int]
    range_: list[int]
    singles: list[int]


def draw_plan(rng: random.Random, layout: Layout) -> Plan:
    periodic, start, interval = draw_periodic(rng, layout)
    taken = set(periodic)
    range_ = draw_range(rng, layout, taken)
    taken.update(range_)
    free = [p for p in range(1, layout.num_subtasks + 1) if p not in taken]
    return Plan(start, interval, periodic, range_, sorted(rng.sample(free, SINGLES)))


def draw_periodic(rng: random.Random, layout: Layout) -> tuple[list[int], int, int]:
    if layout.grid_width:
        width = layout.grid_width
        interval = rng.randint(2, 4)
        x, y0 = rng.randrange(width), rng.randrange(interval)
        return [block_id(layout, x, y) for y in range(y0, width, interval)], block_id(layout, x, y0), interval
    n = layout.num_subtasks
    interval = rng.randint(max(3, n // 15), max(5, n // 8))
    start = rng.randint(1, interval)
    return list(range(start, n + 1, interval)), start, interval


def draw_range(rng: random.Random, layout: Layout, taken: set[int]) -> list[int]:
    """A run of 2+ consecutive free positions (for a grid: inside one row)."""
    longest = 6 if layout.num_subtasks <= 100 else 10
    for length in range(rng.randint(2, longest), 1, -1):
        windows = [w for w in candidate_windows(layout, length) if taken.isdisjoint(w)]
        if windows:
            return rng.choice(windows)
    raise RuntimeError(f"no free range in {layout}")  # cannot happen: periodic intervals are >= 2


def candidate_windows(layout: Layout, length: int) -> list[list[int]]:
    if layout.grid_width:
        width = layout.grid_width
        return [
            [block_id(layout, x, y) for x in range(x0, x0 + length)]
            for y in range(width)
            for x0 in range(width - length + 1)
        ]
    return [list(range(a, a + length)) for a in range(1, layout.num_subtasks - length + 2)]


def generate_items(setting: str, seed: int, per_scenario: int = 100) -> list[dict[str, Any]]:
    """Fresh items for one setting ("short" or "long"), `per_scenario` per scenario (a ValueError past the ceiling)."""
    PER_SCENARIO.check(per_scenario)
    rows = []
    for scenario in SCENARIOS:
        rng = random.Random(f"longgenbench/{seed}/{setting}/{scenario}")
        layout = LAYOUTS[(setting, scenario)]
        for index in range(per_scenario):
            rows.append(make_item(rng, layout, scenario, f"generated_{setting}_{scenario}_{index:03d}", setting))
    return rows


def make_item(rng: random.Random, layout: Layout, scenario: str, item_id: str, setting: str) -> dict[str, Any]:
    templates = SCENARIO_TEMPLATES[scenario]
    plan = draw_plan(rng, layout)
    singles = rng.sample(templates["single"], SINGLES)
    range_event = rng.choice(templates["range"])
    periodic_event = rng.choice(templates["periodic"])
    single_days = [single_day(rng, layout, p) for p in plan.singles] if layout.is_calendar else plan.singles
    writer = PROMPT_WRITERS[scenario]
    instructions = writer(layout, plan, singles, single_days, range_event, periodic_event)
    prefix = f"#*# {header(layout, 1)}:"
    persona = rng.choice(templates["persona"])
    checks = (
        [check("single", p, describe(e)) for p, e in zip(plan.singles, singles, strict=True)]
        + [check("range", p, describe(range_event)) for p in plan.range_]
        + [check("periodic", p, describe(periodic_event)) for p in plan.periodic]
    )
    return {
        "id": item_id,
        "scenario": scenario,
        "setting": setting,
        "prompt": compose_prompt(layout, scenario, persona, instructions) + prefix,
        "prefix": prefix,
        "subtask_type": layout.subtask_type,
        "num_subtasks": layout.num_subtasks,
        "checks": sorted(checks, key=lambda c: (c["subtask"], c["kind"])),
    }


def single_day(rng: random.Random, layout: Layout, position: int) -> int:
    """A day of the year inside the drawn week (or the drawn day itself)."""
    return 7 * (position - 1) + 1 + rng.randrange(7) if layout.unit == "Week" else position


def article(noun: str) -> str:
    return f"{'an' if noun[0].lower() in 'aeiou' else 'a'} {noun}"


def check(kind: str, position: int, description: str) -> dict[str, Any]:
    return {"kind": kind, "subtask": position, "key": str(position), "description": description}


def describe(event: str | tuple[str, str]) -> str:
    return event if isinstance(event, str) else f"{event[0]} featuring {event[1]}"


def calendar_span(layout: Layout, positions: list[int]) -> str:
    first, last = positions[0], positions[-1]
    if layout.unit == "Week":
        return f"from week {first} to week {last}"
    return f"from Day {first} ({spoken_date(first)}) to Day {last} ({spoken_date(last)})"


def calendar_every(layout: Layout, plan: Plan) -> str:
    unit = layout.unit.lower()
    return f"every {plan.periodic_interval} {unit}s, starting from {unit} {plan.periodic_start}"


def diary_instructions(layout, plan, singles, days, range_event, periodic_event) -> list[str]:
    events = "\n".join(
        f"   1.{i} {event} on {spoken_date(day)}"
        for i, (event, day) in enumerate(zip(singles, days, strict=True), start=1)
    )
    return [
        f"One-off events to record in the right entry:\n{events}",
        f"{range_event[0].upper() + range_event[1:]} {calendar_span(layout, plan.range_)}.",
        f"{periodic_event[0].upper() + periodic_event[1:]} {calendar_every(layout, plan)}.",
        "Updates on the weather, work, family life and anything else of interest.",
    ]


def menu_instructions(layout, plan, singles, days, range_event, periodic_event) -> list[str]:
    events = "\n".join(
        f"   1.{i} Celebrate '{name}' on {spoken_date(day)} with a special dish: {dish}."
        for i, ((name, dish), day) in enumerate(zip(singles, days, strict=True), start=1)
    )
    return [
        f"Special occasions:\n{events}",
        f"Feature '{range_event[0]}' {calendar_span(layout, plan.range_)} with dishes like {range_event[1]}.",
        f"Include '{periodic_event[0]}' {calendar_every(layout, plan)}, serving {periodic_event[1]}.",
        "Each menu offers at least two appetizers, main courses, side dishes, desserts and drinks.",
    ]


def skyscraper_instructions(layout, plan, singles, days, range_event, periodic_event) -> list[str]:
    floors = "\n".join(f"   - Floor {p}: {article(use)}." for p, use in zip(plan.singles, singles, strict=True))
    first, last = plan.range_[0], plan.range_[-1]
    return [
        f"Specific floors:\n{floors}",
        f"Floors {first} to {last} together house {article(range_event)}.",
        f"Place {article(periodic_event)} on Floor {plan.periodic_start} and then every "
        f"{plan.periodic_interval} floors above it.",
        "Describe each floor's purpose, architecture and notable design features.",
    ]


def urban_instructions(layout, plan, singles, days, range_event, periodic_event) -> list[str]:
    def at(block: int) -> str:
        return "({}, {})".format(*grid_xy(layout, block))

    blocks = "\n".join(
        f"   - Designate the block at {at(p)} for {article(use)}." for p, use in zip(plan.singles, singles, strict=True)
    )
    return [
        f"Specific blocks:\n{blocks}",
        f"Allocate {article(range_event)} along the row from {at(plan.range_[0])} to {at(plan.range_[-1])}.",
        f"Place {article(periodic_event)} at {at(plan.periodic_start)} and then every "
        f"{plan.periodic_interval} rows further down the same column.",
        "Describe each block's facilities, architecture and value to the city.",
    ]


PROMPT_WRITERS = {
    "diary": diary_instructions,
    "menu": menu_instructions,
    "skyscraper": skyscraper_instructions,
    "urban_planning": urban_instructions,
}

INTRODUCTIONS = {
    "diary": "{persona}, keeps a diary of {year}, one entry per {unit}, and wants it to capture:",
    "menu": "As {persona}, design the restaurant's menus for {year}, one menu per {unit}, following:",
    "skyscraper": "As {persona}, document the design of a {n}-floor skyscraper, floor by floor, following:",
    "urban_planning": "As {persona}, plan a city on a {w}x{w} grid of blocks numbered 1 to {n} from left to "
    "right and top to bottom (the block at (x, y) is Block y*{w} + x + 1), following:",
}


def compose_prompt(layout: Layout, scenario: str, persona: str, instructions: list[str]) -> str:
    unit = layout.unit.lower()
    intro = INTRODUCTIONS[scenario].format(
        persona=persona, year=YEAR, unit=unit, n=layout.num_subtasks, w=layout.grid_width
    )
    numbered = "\n".join(f"{i}) {text}" for i, text in enumerate(instructions, start=1))
    n = layout.num_subtasks
    example = f"#*# {header(layout, 1)}:"
    return (
        f"{intro}\n{numbered}\n{len(instructions) + 1}) Use '#*#' to separate the entries, each starting "
        f"with its header, e.g. '{example}'.\n"
        f"Write exactly {n} entries, one for each {unit} from 1 to {n}, each at least "
        f"{layout.words_per_entry} words long, with no interruptions or omissions. When all {n} entries are "
        "complete, write '*** finished' to mark the end of the document. *** started ***\n"
    )
