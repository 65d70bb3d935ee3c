"""The leaderboard built from run folders: which runs share a table, why another table is separate, each row's figures.

`longform-eval leaderboard RUN_OR_FOLDER... --out DIR` and `longform_eval.leaderboard(...)` read scored runs (run
folders, folders holding run folders; `hf://` runs arrive as their local copies) as `report` reads them, and put
each run in a table with the runs it can be compared with (`comparability`, the rule `report` and `compare` share:
benchmark config and options, dataset, prompts, the judge by its identity and its verdict-changing settings). A run
that differs in any of these goes into another table, which names every field that differs. A row per run: the
headline figure (`Benchmark.headline_of`, the one rule every reader uses) with the run's own 95% interval, the
figure on the units all runs of the table scored and its rank and rank range from the paired comparisons on those
units (`comparisons.group_comparisons`: the math is `longform_eval.metric.uncertainty`'s), n, each other
figure with its interval (the tasks), and the run's deviations from the paper's protocol (scores.json `deviations`).
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..benchmarks.layouts import field_value
from ..runner.config import RunConfig
from ..runner.folder import CONFIG_FILE, read_config, validated_config
from .comparability import Comparability, comparability, separation_reason
from .comparison_groups import group_comparisons
from .comparisons import ComparedRun, benchmark_config, units_of_run
from .leaderboard import Figure, Leaderboard, LeaderboardRow, LeaderboardTable
from .markdown import benchmark_of
from .scores_file import SCORES_FILE, load_scores

SEARCH_DEPTH = 4  # runs/<group>/<model>/<config>: how far below a folder given run folders are looked for
FIRST_REASON = "the runs that share benchmark config and options, dataset, prompts, judge and judge settings"


# ----- which runs -------------------------------------------------------------------------------------------------
def run_folders(paths: Iterable[Path]) -> list[Path]:
    """Each path that is a run folder (has config.yaml), and the scored run folders below each path that is not
    (`scored_runs_below`)."""
    found: list[Path] = []
    for path in map(Path, paths):
        if not path.exists():
            raise FileNotFoundError(f"{path}: no such run folder")
        if os.path.lexists(path / CONFIG_FILE):  # whatever stands there: its reader names it if it is no file
            found.append(path)
            continue
        below = scored_runs_below(path)
        if not below:
            raise FileNotFoundError(
                f"{path}: not a run folder (no {CONFIG_FILE}) and holds no scored run folder within {SEARCH_DEPTH} "
                "levels below it"
            )
        found.extend(below)
    return list(dict.fromkeys(found))


def scored_runs_below(folder: Path) -> list[Path]:
    """The scored run folders (config.yaml and scores.json) at most SEARCH_DEPTH levels below `folder`, sorted: no
    link followed, no hidden folder entered, nothing below a run folder searched (so `leaderboard /` does not
    walk the whole filesystem)."""
    found = []
    for root, folders, names in os.walk(folder, followlinks=False):
        here = Path(root)
        if CONFIG_FILE in names or CONFIG_FILE in folders:
            if SCORES_FILE in names:
                found.append(here)
            folders.clear()
            continue
        if len(here.relative_to(folder).parts) >= SEARCH_DEPTH:
            folders.clear()
        folders[:] = sorted(name for name in folders if not name.startswith("."))
    return sorted(found)


# ----- reading the runs -------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ReadRun:
    folder: Path
    config: RunConfig
    compared: ComparedRun
    has_units: bool

    @property
    def group(self) -> Comparability:
        """What must agree for two runs to share a table (`comparability`, the rule every reader shares)."""
        group = self.compared.group  # set by `read_run`
        return group if group is not None else comparability(self.config, self.compared.config)


def read_run(folder: Path) -> ReadRun:
    """A scored run folder (already checked by `run_checks.checked_runs`), read: nothing is written."""
    config = validated_config(folder / CONFIG_FILE, read_config(folder))
    scores = load_scores(folder)
    benchmark = benchmark_of(scores)
    units = units_of_run(folder, scores, benchmark)
    has_units = units is not None and len(units) > 0
    group = comparability(config, benchmark_config(scores))
    return ReadRun(folder, config, ComparedRun(str(folder), scores, benchmark, units, group), has_units)


def grouped(runs: Sequence[ReadRun]) -> list[list[ReadRun]]:
    """The runs by comparability, in the order of their first run."""
    groups: dict[str, list[ReadRun]] = {}
    for run in runs:
        groups.setdefault(run.group.key, []).append(run)
    return list(groups.values())


def run_row(table: str, run: ReadRun, ranked: dict[str, dict[str, Any]], headline: str | None) -> LeaderboardRow:
    compared, scores = run.compared, run.compared.scores
    found = ranked.get(compared.label) or {}
    own = scores.intervals.get(headline) if headline else None
    shared = {"shared_score": found.get("shared_value"), "dropped": found.get("dropped")}
    tasks = {}
    for name in compared.names():
        if name != headline:
            bounds = scores.intervals.get(name)
            tasks[name] = Figure(compared.value(name), *((bounds.low, bounds.high) if bounds else (None, None)))
    return LeaderboardRow(
        table=table,
        benchmark=scores.benchmark,
        config=scores.config,
        model=run.config.model_label,
        judge=run.config.judge_label,
        figure=headline,
        score=compared.value(headline) if headline else None,
        low=own.low if own else None,
        high=own.high if own else None,
        rank=found.get("rank"),
        rank_low=found.get("best"),
        rank_high=found.get("worst"),
        n=own.n if own else field_value(scores.figures, "n_scored"),
        tasks=tasks,
        deviations=tuple(scores.deviations),
        run=str(run.folder),
        complete=scores.complete,
        **shared,
    )


def table_of(number: int, runs: list[ReadRun], first: Comparability) -> LeaderboardTable:
    """Table `number` (1-based): ranks from the paired comparisons of its runs with per-unit records, on the units
    all of them scored (`comparisons.group_comparisons`, as `compare` and `report` compute them)."""
    table_id = f"T{number}"
    ranked_runs = [run.compared for run in runs if run.has_units]
    prompts = None
    if ranked_runs:
        fields = group_comparisons(ranked_runs)[0]
        ranks, prompts = fields["rank_ranges"], fields["prompts"]
        headline, unit, n_shared = ranks["figure"], ranks["unit"], ranks["n_shared"]
        by_run = {row["run"]: row for row in ranks["runs"]}
    else:
        compared = runs[0].compared
        headline, unit, n_shared, by_run = compared.benchmark.headline_of(compared.names()), None, None, {}
    rows = [run_row(table_id, run, by_run, headline) for run in runs]
    rows.sort(key=lambda row: (row.rank is None, row.rank or 0, -(row.score if row.score is not None else -math.inf)))
    group = runs[0].group
    judges = sorted({str(run.config.judge_label) for run in runs})
    return LeaderboardTable(
        id=table_id,
        benchmark=group.fields["benchmark"],
        judge=", ".join(judges),
        figure=headline,
        unit=unit,
        n_shared=n_shared,
        reason=FIRST_REASON if number == 1 else "separate from table 1: " + separation_reason(group, first),
        settings=group.fields,
        rows=tuple(rows),
        prompts=prompts,
    )


def build_leaderboard(folders: Sequence[Path]) -> Leaderboard:
    """The leaderboard of run folders already checked by `run_checks.checked_runs`."""
    runs = [read_run(Path(folder)) for folder in dict.fromkeys(folders)]
    groups = grouped(runs)
    if not groups:
        return Leaderboard(())
    first = groups[0][0].group
    return Leaderboard(tuple(table_of(i, members, first) for i, members in enumerate(groups, start=1)))


__all__ = ["build_leaderboard", "run_folders"]
