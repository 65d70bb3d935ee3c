"""Paired comparisons of the given runs of one benchmark config: differences on shared units, ties, rank ranges.

`longform-eval report RUN_A RUN_B ...` compares every two given runs of the same benchmark config (benchmark, config
and, for the pairwise benchmarks, baseline; runs of different configs are not compared) on the units both scored:
for each figure of their `intervals`, headline first, a - b with its paired 95% interval (the difference one
figure on the shared units, so what the prompts share cancels; none, with its reason, where it rests on one unit per
stratum), p-value, and the smallest difference those units detect at 80% power. A unit either run left unscored is
left out of both sides, so each figure rests on the same units on both. A difference whose interval holds 0 is a tie
and printed as one, never as a ranking. Per config, each run's rank range on the headline figure over the units all
its runs scored (as Chatbot Arena shows). The math is `longform_eval.metric.uncertainty`'s; this module knows no
benchmark.

Written to `comparisons.json` by `comparisons_file`, only into the folder `report --out DIR` names.
"""

from __future__ import annotations

import functools
import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
from scipy.special import ndtr  # scipy.stats' norm.sf(x) is ndtr(-x), without importing scipy.stats

from longform_eval.metric.uncertainty import (
    DEFAULT_LEVEL,
    Difference,
    difference_reason,
    minimum_detectable_difference,
    paired_difference,
    shared_units,
)
from longform_eval.metric.uncertainty.figures import Figure
from longform_eval.metric.uncertainty.intervals import normal_interval
from longform_eval.metric.uncertainty.sparse import pooled_difference, sparse_strata
from longform_eval.metric.uncertainty.unit_intervals import column_figure, figure_bounds
from longform_eval.metric.uncertainty.units import UnitTable

from ..benchmarks import Benchmark
from ..benchmarks.layouts import field_value
from ..benchmarks.run_scores import RunScores
from ..runner.folder import CONFIG_FILE, read_config, validated_config
from ..runner.uncertainty import UnitsNotKept, stored_units
from .comparability import Comparability, comparability
from .json_file import DamagedFile
from .markdown import benchmark_of, load_scores
from .result_cache import cached, scores_digest
from .scores_file import SCORES_FILE

FILE = "comparisons.json"
WRITTEN_BY = "longform-eval report"
OURS = f'the comparisons files it writes are JSON objects with "written_by": "{WRITTEN_BY}"'
METHOD = (
    f"a - b on the units both runs scored (a unit either left unscored is left out of both), {DEFAULT_LEVEL:.0%} "
    "t interval of the paired difference (linearized SE with the n/(n-1) small-sample factor per stratum, "
    "stratified as each run's own intervals, Welch-Satterthwaite df; p_value the same t test's; a stratum with one "
    "unit among larger ones borrows the pooled variance of the others' differences; none, with a reason, on one "
    "unit per stratum), on the logit of the difference's range (so it stays in it; near 0 the t interval itself); "
    "distinguishable: the interval excludes 0; minimum_detectable: the smallest "
    "true difference these units detect with 80% power at alpha 0.05 (t test); rank ranges from the paired "
    "differences (best: 1 + the runs distinguishably above, worst: the runs less those distinguishably below). "
    'Figures from a fitted model ("paired": false): normal interval from the two runs\' standard errors, unpaired.'
)


@dataclass(frozen=True)
class ComparedRun:
    """A run folder as given on the command line, its scores.json, its benchmark and the units its figures rest on."""

    label: str
    scores: RunScores
    benchmark: Benchmark
    units: UnitTable
    group: Comparability | None = None  # which runs it shares a table with (`comparability`); None: by config only

    @functools.cached_property
    def digest(self) -> str | None:
        """What its comparisons are cached by (`result_cache.scores_digest`)."""
        return scores_digest(self.scores)

    @property
    def config(self) -> str:
        """`benchmark:config`, and the baseline where there is one."""
        return benchmark_config(self.scores)

    @property
    def group_key(self) -> str:
        return self.group.key if self.group is not None else self.config

    @property
    def figure_names(self) -> list[str]:
        """The figures of `intervals` that have one, the headline first."""
        return self.names(with_interval=True)

    def names(self, with_interval: bool = False) -> list[str]:
        """The figures of `intervals` (those with one only, or all: a figure without one is still compared, to say
        why its difference has none), the headline first."""
        names = [name for name, found in self.scores.intervals.items() if found or not with_interval]
        headline = self.benchmark.headline_of(names)
        return sorted(names, key=lambda name: name != headline)

    def value(self, name: str) -> float | None:
        """Figure `name` as scores.json reports it."""
        found = self.benchmark.figure_value(self.scores.figures, name)
        return found if isinstance(found, (int, float)) else None


def benchmark_config(scores: RunScores) -> str:
    """`benchmark:config` of a scores.json, and ` vs BASELINE` where it has a baseline."""
    name = f"{scores.benchmark}:{scores.config}"
    baseline = field_value(scores.figures, "baseline")
    return f"{name} vs {baseline}" if baseline else name


# ----- the runs and the units they share -------------------------------------------------------------------------
def units_of_run(folder: Path, scores: RunScores, benchmark: Benchmark) -> UnitTable | None:
    """The units a run's figures rest on, from its scores.json alone (`runner.uncertainty.stored_units`: with several
    judge samples, the mean of the samples' tables it keeps); the run is never re-opened or rescored here. A
    DamagedFile naming the file where it does not keep each judge sample's units."""
    try:
        return stored_units(benchmark, scores)
    except UnitsNotKept as error:
        raise DamagedFile(f"{Path(folder) / SCORES_FILE}: {error}; run `longform-eval score {folder}` again") from None


def run_group(folder: Path, scores: RunScores) -> Comparability:
    """The comparability of the run folder whose scores.json is `scores` (its config.yaml read and checked)."""
    config = validated_config(Path(folder) / CONFIG_FILE, read_config(Path(folder)))
    return comparability(config, benchmark_config(scores))


def compared_runs(folders: Sequence[Path]) -> list[ComparedRun]:
    """The given runs (each folder once) whose benchmark gives per-unit records."""
    found = []
    for folder in dict.fromkeys(folders):
        scores = load_scores(folder)
        benchmark = benchmark_of(scores)
        units = units_of_run(Path(folder), scores, benchmark)
        if units is not None and len(units):
            found.append(ComparedRun(str(folder), scores, benchmark, units, run_group(Path(folder), scores)))
    return found


@dataclass(frozen=True)
class SharedUnits:
    """The units every run of a group scored, each run's table on them (`aligned`), and per run how many units
    some other run of the group scored that this one did not (left unscored, or not in its prompts)."""

    tables: list[UnitTable]
    dropped: dict[str, int]
    figures_at: dict[int, dict[str, Figure]] = field(default_factory=dict)  # each run's figures on them, once

    def figures(self, run: ComparedRun, at: int) -> dict[str, Figure]:
        """The figures of the run at position `at` on the shared units (computed once for all its pairs)."""
        if at not in self.figures_at:
            table = self.tables[at]
            self.figures_at[at] = run.benchmark.figures(table) if len(table) else {}
        return self.figures_at[at]

    @property
    def n(self) -> int:
        return len(self.tables[0])

    @functools.cached_property
    def digest(self) -> str:
        """What the group's comparisons are cached by, beside the runs' contents: the shared units' ids."""
        return hashlib.sha256("\0".join(self.tables[0].ids).encode("utf-8")).hexdigest()


def shared_by(runs: Sequence[ComparedRun]) -> SharedUnits:
    column = runs[0].benchmark.judge_noise_column
    scored = [scored_ids(run.units, column) for run in runs]
    union = set().union(*scored)
    dropped = {run.label: len(union - ids) for run, ids in zip(runs, scored, strict=True)}
    return SharedUnits(aligned([run.units for run in runs], column), dropped)


def scored_ids(table: UnitTable, scored_column: str | None) -> set[str]:
    if scored_column is None:
        return set(table.ids)
    return {unit for unit, value in zip(table.ids, table[scored_column], strict=True) if np.isfinite(value)}


def aligned(tables: Sequence[UnitTable], scored_column: str | None) -> list[UnitTable]:
    """The tables on the units all of them scored (`scored_column` finite in every table), in the first table's
    order; any other column NaN in every table wherever one table has NaN, so each figure rests on the same units
    on every side."""
    ids: Sequence[str] = tables[0].ids
    for table in tables[1:]:
        ids = shared_units(ids, table.ids)[0]
    subsets = [table.subset(shared_units(ids, table.ids)[2]) for table in tables]
    if scored_column is not None:
        scored = np.logical_and.reduce([np.isfinite(table[scored_column]) for table in subsets])
        subsets = [table.subset(np.flatnonzero(scored)) for table in subsets]
    missing = {name: np.logical_or.reduce([np.isnan(t[name]) for t in subsets]) for name in subsets[0].columns}
    return [
        replace(
            table, columns={name: np.where(missing[name], np.nan, column) for name, column in table.columns.items()}
        )
        for table in subsets
    ]


# ----- one pair ---------------------------------------------------------------------------------------------------
def compare(a: ComparedRun, b: ComparedRun, shared: SharedUnits | None = None, at: tuple[int, int] = (0, 1)):
    """One `comparisons.json` entry per figure of a's intervals (headline first): a - b on the units both scored,
    or on `shared` (the units every run of their group scored; `at`: a's and b's positions in it); computed once
    per pair of scores.json contents and shared units (`result_cache`), the runs' labels put in afterwards."""
    shared = shared or shared_by([a, b])
    tables = (shared.tables[at[0]], shared.tables[at[1]])
    parts = None if None in (a.digest, b.digest) else [METHOD, a.digest, b.digest, shared.digest]

    def compute() -> list[dict[str, Any]]:  # on a cache miss only: each run's figures on the shared units, once
        figures = (shared.figures(a, at[0]), shared.figures(b, at[1]))
        return [entry | {"a": None, "b": None} for entry in compared(a, b, tables, figures)]

    entries = cached("comparison", parts, compute)
    return [entry | {"a": a.label, "b": b.label} for entry in entries]


def compared(
    a: ComparedRun, b: ComparedRun, tables: tuple[UnitTable, UnitTable], figures: tuple[dict, dict]
) -> list[dict[str, Any]]:
    table_a, table_b = tables
    figures_a, figures_b = figures
    entries = []
    for name in a.names():
        head = {"a": a.label, "b": b.label, "benchmark": a.config, "figure": name}
        if name in figures_a and name in figures_b:
            found, reason = paired(a, b, (table_a, table_b), name, (figures_a[name], figures_b[name]))
            entry = difference_fields(found, len(table_a))
            if found is None:
                points = (figures_a[name].point(), figures_b[name].point())
                entry |= {"difference": None if None in points else points[0] - points[1], "reason": reason}
            entries.append(head | {"paired": True} | entry)
        elif name in a.benchmark.fitted_intervals(a.scores.figures):  # refitted, not resampled: unpaired
            entries.append(head | {"paired": False} | independent_fields(a, b, name))
        else:
            entries.append(head | {"paired": True} | difference_fields(None, 0))
    return entries


def difference_bounds(benchmark: Benchmark, name: str) -> tuple[float, float] | None:
    """The range a difference of figure `name` can take: that of the figure, less its own extent."""
    bounds = figure_bounds(benchmark, [name])[name]
    return None if bounds is None else (bounds[0] - bounds[1], bounds[1] - bounds[0])


def paired(a: ComparedRun, b: ComparedRun, tables: tuple[UnitTable, UnitTable], name: str, figures: tuple) -> tuple:
    """(Difference or None, why none) of figure `name` (`figures`: a's and b's, built on the aligned tables); a
    one-unit stratum among larger ones borrows the pooled variance of the per-unit differences of the row score."""
    table_a, table_b = tables
    design, column, bounds = table_a.design(), a.benchmark.judge_noise_column, difference_bounds(a.benchmark, name)
    if column is not None and sparse_strata(design, np.isfinite(table_a[column])):
        builds = (column_figure(a.benchmark, table_a, column, name), column_figure(b.benchmark, table_b, column, name))
        scale = figure_bounds(a.benchmark, [name])[name]
        return pooled_difference(*builds, table_a[column], table_b[column], design, bounds=bounds, scale=scale)
    figure_a, figure_b = figures
    found = paired_difference(figure_a, figure_b, design, scale=figure_bounds(a.benchmark, [name])[name])
    return found, (None if found is not None else difference_reason(figure_a, figure_b, design))


def difference_fields(found: Difference | None, units: int) -> dict[str, Any]:
    if found is not None:
        return found.to_dict()
    empty = dict.fromkeys(("difference", "low", "high", "se", "p_value", "distinguishable", "minimum_detectable"))
    return {"n_paired": units} | empty


def independent_fields(a: ComparedRun, b: ComparedRun, name: str) -> dict[str, Any]:
    """A figure that is refitted rather than resampled (the LC win rate): normal interval from both runs' SEs."""
    value_a, value_b = a.value(name), b.value(name)
    se_a, se_b = (getattr(run.scores.intervals.get(name), "se", None) for run in (a, b))
    if None in (value_a, value_b, se_a, se_b) or math.hypot(se_a, se_b) == 0:
        return difference_fields(None, 0) | {"n_paired": None}
    found = normal_interval(value_a - value_b, math.hypot(se_a, se_b), 0)
    return {
        "n_paired": None,
        "difference": found.point,
        "low": found.low,
        "high": found.high,
        "se": found.se,
        "p_value": float(2 * ndtr(-(abs(found.point) / found.se))),
        "distinguishable": not found.contains(0.0),
        "minimum_detectable": minimum_detectable_difference(found.se),
    }
