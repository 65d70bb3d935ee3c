"""timings.json: the wall time of each stage of every invocation on a run folder, and report.md's section on it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field

from longform_eval.common.atomic import write_text_atomic
from longform_eval.common.plurals import counted

from ..benchmarks.layouts import Count, Layout
from .json_file import check_layout, read_json
from .sections.tables import fmt, markdown_table

TIMINGS_FILE = "timings.json"
STAGES = ("generate", "judge", "score", "report")
REPAIR = "delete it (it records stage times only; the next run starts a new one) or restore it"


class Invocation(Layout):
    started: str
    seconds: dict[str, Annotated[float, Field(ge=0)]]
    model_calls: Count
    judge_calls: Count


class Timings(Layout):
    invocations: list[Invocation]


def read_timings(folder: Path) -> list[dict[str, Any]]:
    """The invocations recorded in timings.json, oldest first; a DamagedFile naming the field if it is damaged."""
    path = Path(folder) / TIMINGS_FILE
    if not path.exists():  # a FIFO, a device or a folder there is named by `read_json`, never replaced
        return []
    document = read_json(path, REPAIR)
    check_layout(path, Timings, document, REPAIR)
    return document["invocations"]


def save_invocation(folder: Path, invocation: dict[str, Any]) -> Path:
    """Record one invocation's stage times, replacing an earlier record of the same invocation (`started`)."""
    kept = [i for i in read_timings(folder) if i["started"] != invocation["started"]]
    document = {"invocations": [*kept, invocation]}
    return write_text_atomic(Path(folder) / TIMINGS_FILE, json.dumps(document, indent=2) + "\n")


def timing_lines(invocations: list[dict[str, Any]]) -> list[str]:
    if not invocations:
        return []
    latest = invocations[-1]
    rows = [(stage, fmt(latest["seconds"].get(stage), 1), fmt(total(invocations, stage), 1)) for stage in STAGES]
    return [
        "",
        "## Wall time per stage",
        "",
        f"The latest invocation (started {latest['started']}: model calls {latest['model_calls']}, judge calls "
        f"{latest['judge_calls']}) and all {counted(len(invocations), 'invocation')} on this folder. Generate and "
        "judge include loading their model; the latest report stage is timed after this file is written.",
        "",
        *markdown_table(("stage", "latest (s)", "all invocations (s)"), rows),
    ]


def total(invocations: list[dict[str, Any]], stage: str) -> float | None:
    """Seconds spent in `stage` over the invocations that ran it; None when none did."""
    spent = [i["seconds"][stage] for i in invocations if stage in i["seconds"]]
    return sum(spent) if spent else None
