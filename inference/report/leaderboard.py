"""The leaderboard of many runs, as data: one table per comparable group, each row a run with its headline figure,
interval, rank and rank range from the paired comparisons, n, the other figures (tasks) and its deviations.

Built by `leaderboard_build` (which runs share a table, and why another is separate), written by `leaderboard_files`
(md, csv, json, tex, png, pdf). Models and judges are shown by their labels (`RunConfig.model_label`,
`judge_label`), never by a file path; the run folder stays in the JSON and the DataFrame, to trace a row back.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from html import escape
from typing import Any

from longform_eval.common.plurals import counted

from .comparisons import METHOD


# ----- rows and tables --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Figure:
    """A figure of a run with its 95% interval (None where it has none)."""

    score: float | None
    low: float | None = None
    high: float | None = None


@dataclass(frozen=True)
class LeaderboardRow:
    """One run in its table: the headline figure with the run's own interval, rank and rank range on it."""

    table: str
    benchmark: str
    config: str
    model: str
    judge: str | None
    figure: str | None
    score: float | None
    low: float | None
    high: float | None
    rank: int | None
    rank_low: int | None
    rank_high: int | None
    n: int | None
    tasks: dict[str, Figure]
    deviations: tuple[str, ...]
    run: str
    complete: bool = True  # every call made: False while calls are pending (the figures are not final)
    shared_score: float | None = None  # the headline on the units all runs of the table scored: what `rank` rests on
    dropped: int | None = None  # units other runs of the table scored that this one did not (unscored or missing)

    def to_dict(self) -> dict[str, Any]:
        head = {name: getattr(self, name) for name in COLUMNS if name not in ("table_reason",)}
        tasks = {name: vars(found) for name, found in self.tasks.items()}
        tail = {"deviations": list(self.deviations), "complete": self.complete, "run": self.run}
        tail["dropped"] = self.dropped
        return head | {"tasks": tasks} | tail


COLUMNS = (
    "table",
    "table_reason",
    "benchmark",
    "config",
    "model",
    "judge",
    "figure",
    "score",
    "low",
    "high",
    "shared_score",
    "rank",
    "rank_low",
    "rank_high",
    "n",
)


@dataclass(frozen=True)
class LeaderboardTable:
    """Runs that can be compared: one benchmark config, judge and prompt set. `reason` says why it is a table of its
    own; `n_shared` is the number of units all its runs scored (what the ranks rest on)."""

    id: str
    benchmark: str
    judge: str | None
    figure: str | None
    unit: str | None
    n_shared: int | None
    reason: str
    settings: dict[str, Any]
    rows: tuple[LeaderboardRow, ...]
    prompts: str | None = None  # the units the ranks rest on, and what each run's gaps left out

    @property
    def task_names(self) -> list[str]:
        return list(dict.fromkeys(name for row in self.rows for name in row.tasks))

    def to_dict(self) -> dict[str, Any]:
        head = {"id": self.id, "benchmark": self.benchmark, "judge": self.judge, "figure": self.figure}
        shared = {"unit": self.unit, "n_shared": self.n_shared, "prompts": self.prompts, "reason": self.reason}
        shared["settings"] = self.settings
        return head | shared | {"rows": [row.to_dict() for row in self.rows]}


@dataclass(frozen=True)
class Leaderboard:
    """The leaderboard of the given runs: one table per comparable group (see the module doc)."""

    tables: tuple[LeaderboardTable, ...]
    method: str = field(default=METHOD, repr=False)

    @property
    def rows(self) -> list[LeaderboardRow]:
        return [row for table in self.tables for row in table.rows]

    def __len__(self) -> int:
        return len(self.rows)

    def to_dict(self) -> dict[str, Any]:
        return {
            "written_by": "longform-eval leaderboard",
            "method": self.method,
            "tables": [table.to_dict() for table in self.tables],
        }

    def to_pandas(self):
        """One row per run: the COLUMNS, then per other figure (task) its score, low and high, then deviations and
        the run folder (`records`)."""
        import pandas as pd

        records = self.records()
        frame = pd.DataFrame.from_records(records)
        return frame.reindex(columns=self.columns(records)) if records else frame

    def columns(self, records: list[dict[str, Any]]) -> list[str]:
        """The COLUMNS, then every other field of `records` in the order met."""
        return list(dict.fromkeys([*COLUMNS, *(name for record in records for name in record)]))

    def records(self) -> list[dict[str, Any]]:
        """One record per run, as `to_pandas` has them (and leaderboard.csv, without pandas)."""
        records = []
        for table in self.tables:
            for row in table.rows:
                record = {name: getattr(row, name) for name in COLUMNS if name != "table_reason"}
                record["table_reason"] = table.reason
                for name in table.task_names:
                    found = row.tasks.get(name, Figure(None))
                    record |= {name: found.score, f"{name}_low": found.low, f"{name}_high": found.high}
                tail = {"deviations": "; ".join(row.deviations), "complete": row.complete, "run": row.run}
                records.append(record | tail)
        return records

    def __repr__(self) -> str:
        lines = [f"Leaderboard: {counted(len(self), 'run')} in {counted(len(self.tables), 'table')}"]
        for table in self.tables:
            lines.append(f"  {table.id} {table.benchmark}, judge {table.judge}, {table.figure}:")
            lines += [f"    {row_line(row)}" for row in table.rows]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        parts = []
        for table in self.tables:
            caption = f"{table.id}: {table.benchmark}, judge {table.judge} ({table.reason})"
            frame = self.to_pandas()
            frame = frame[frame["table"] == table.id].drop(columns=["table", "table_reason", "run"])
            parts.append(f"<h4>{escape(caption)}</h4>" + frame.to_html(index=False, na_rep="-"))
        return "\n".join(parts)


def row_line(row: LeaderboardRow) -> str:
    ranks = "-" if row.rank is None else f"rank {row.rank} ({row.rank_low}..{row.rank_high})"
    return f"{row.model}: {fmt_figure(row.score, row.low, row.high)}, {ranks}, n={row.n}"


def fmt_figure(score: float | None, low: float | None, high: float | None, digits: int = 2) -> str:
    """`48.55 [45.71, 51.40]`, the figure alone without an interval, `-` without a figure."""
    if score is None or (isinstance(score, float) and math.isnan(score)):
        return "-"
    if low is None or high is None:
        return f"{score:.{digits}f}"
    return f"{score:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"


__all__ = ["COLUMNS", "Figure", "Leaderboard", "LeaderboardRow", "LeaderboardTable", "fmt_figure"]
