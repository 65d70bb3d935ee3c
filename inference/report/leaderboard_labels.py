"""What every file of the leaderboard says of a table and its rows: labels whole (wrapped, a shared parenthetical
said once), deviation marks and their notes, what the ranks rest on, a task's figure of a row."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from ..scrubbed_output import scrubbed_line
from .leaderboard import LeaderboardRow, LeaderboardTable


def deviation_notes(table: LeaderboardTable) -> tuple[dict[str, str], list[str]]:
    """A mark per run that deviates from the paper's protocol (`*`, or `*1`, `*2`... when they differ), and the
    notes the marks point to."""
    distinct = list(dict.fromkeys(row.deviations for row in table.rows if row.deviations))
    if not distinct:
        return {}, []
    marks = ["*"] if len(distinct) == 1 else [f"*{i}" for i in range(1, len(distinct) + 1)]
    by_run = {row.run: marks[distinct.index(row.deviations)] for row in table.rows if row.deviations}
    notes = [
        f"{mark} deviates from the paper's protocol: {'; '.join(d)}" for mark, d in zip(marks, distinct, strict=True)
    ]
    return by_run, notes


def task_figure(row: LeaderboardRow, name: str) -> tuple[float | None, float | None, float | None]:
    found = row.tasks.get(name)
    return (None, None, None) if found is None else (found.score, found.low, found.high)


def ranks_sentence(table: LeaderboardTable) -> str:
    """What the ranks rest on: the units all runs of the table scored (the "shared" column's figure), and the units
    each run's gaps left out; a run's own figure and interval, over all its units, are beside them."""
    if table.n_shared is None:
        return "Ranks: none (no per-unit records)."
    prompts = table.prompts or f"compared on the {table.n_shared} {table.unit}s all runs scored"
    return (
        f"Ranks and the shared figure: {prompts}. The figure with its 95% interval is each run's own, over all the "
        f"{table.unit}s it scored."
    )


# ----- labels: whole, wrapped, a shared parenthetical said once ---------------------------------------------------
BREAK_AFTER = "_-/:"  # a label line may end after one of these (or before a space)


def common_parenthetical(labels: list[str]) -> str:
    """The ` (...)` tail every one of two or more labels ends with (`(released answers)`), else ''. Said once in a
    note or title, it leaves the distinct part of each label; a label that is the tail alone keeps it."""
    if len(labels) < 2:
        return ""
    tail = labels[0]
    for label in labels[1:]:
        while not label.endswith(tail):
            tail = tail[1:]
    start = tail.find(" (")
    if start < 0 or any(len(label) == len(tail) - start for label in labels):
        return ""
    return tail[start + 1 :]


def wrap(text: str, limit: int) -> list[str]:
    """`text` in lines of at most `limit` characters where it can be broken (before ` (`, at a space, after one of
    BREAK_AFTER; a run of characters longer than `limit` is split), nothing dropped: the lines joined with the
    spaces they were broken at give `text` back. The start of the text is the first line, so the distinct part of a
    name comes first."""
    lines, rest = [], text
    while len(rest) > limit:
        cut = break_at(rest, limit)
        lines.append(rest[:cut].rstrip(" "))
        rest = rest[cut:].lstrip(" ")
    return [*lines, rest]


def break_at(text: str, limit: int) -> int:
    """Where to end the first line of `text` (longer than `limit`): the last break within `limit` before ` (`, else
    the last space, else the last place after one of BREAK_AFTER, that leaves a third of a line or more (a
    parenthesis may start a line after a shorter one); else at `limit`."""
    head = text[: limit + 1]
    for candidates, shortest in (
        ([i for i in range(1, limit + 1) if head.startswith(" (", i)], 1),
        ([i for i in range(1, limit + 1) if head[i] == " "], limit // 3),
        ([i + 1 for i in range(limit) if head[i] in BREAK_AFTER], limit // 3),
    ):
        fitting = [i for i in candidates if i >= shortest]
        if fitting:
            return fitting[-1]
    return limit


def distinct_models(rows: list[LeaderboardRow]) -> list[str]:
    """Each row's model label, with its run folder's name after it where two rows of a table share a label (its
    whole path where that name is shared too)."""
    labels = [row.model for row in rows]
    for name in (lambda row: Path(row.run).name, lambda row: row.run):
        counts = Counter(labels)
        pairs = zip(labels, rows, strict=True)
        labels = [label if counts[label] == 1 else f"{row.model} [{name(row)}]" for label, row in pairs]
    return labels


def model_labels(rows: list[LeaderboardRow], limit: int) -> tuple[list[list[str]], str]:
    """Each row's model label as lines of at most `limit` characters (whole: wrapped, never cut), without the
    parenthetical every label of the table shares; and that parenthetical ('' if none), to be said once."""
    models = [scrubbed_line(model) for model in distinct_models(rows)]  # before a wrap could split a key
    shared = common_parenthetical(models)
    stems = [model.removesuffix(" " + shared) if shared else model for model in models]
    return [wrap(stem, limit) for stem in stems], shared
