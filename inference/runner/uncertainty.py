"""The uncertainty fields of scores.json: each figure's 95% interval, and the judge's share of its variance.

The benchmark says what it sampled (`Benchmark.unit_table`) and how its figures add up (`Benchmark.figures`); the
math is `longform_eval.metric.uncertainty`'s. With K judge samples the run's unit table is the mean of the samples'
tables (a row's score is the mean of its scored samples) and the top-level figures are recomputed from it; each
sample's unit columns are kept in scores.json (`sample_units`), so that a reader (a comparison, a leaderboard) builds
the same table from scores.json alone (`stored_units`), never re-opening or rescoring the run.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from longform_eval.common.errors import LongformEvalError
from longform_eval.metric.uncertainty import (
    VarianceSplit,
    judge_sd,
    split_variance,
)
from longform_eval.metric.uncertainty.unit_intervals import column_figure, figure_intervals_and_reasons
from longform_eval.metric.uncertainty.units import UnitTable, mean_over_samples, sample_matrix

from ..benchmarks import Benchmark
from ..benchmarks.run_scores import RunScores

NOT_MEASURED = "judge noise not measured: one judge sample per call (--judge-samples 2 or more measures it)"


def run_units(benchmark: Benchmark, sample_figures: list[Any]) -> tuple[UnitTable | None, list[UnitTable]]:
    """The units the run's figures rest on (judge samples averaged), and each sample's own table (`sample_figures`:
    each judge sample's figures as the benchmark's `scores_layout`, as `Benchmark.score` returns them)."""
    tables = [benchmark.unit_table(figures) for figures in sample_figures]
    if tables[0] is None or not len(tables[0]) or any(table is None for table in tables):
        return None, []
    return (mean_over_samples(tables) if len(tables) > 1 else tables[0]), tables


def uncertainty_fields(benchmark: Benchmark, sample_figures: list[Any]) -> dict[str, Any]:
    """`intervals`, `interval_method`, `interval_notes` (why a figure has no interval), `judge_samples`, `judge_sd` and
    `variance_split` for scores.json; with several judge samples also the top-level figures as the mean over samples
    gives them (set by `apply_points`)."""
    fields: dict[str, Any] = {"judge_samples": len(sample_figures), "judge_sd": None, "intervals": {}}
    units, tables = run_units(benchmark, sample_figures)
    if units is None:
        kept = {"sample_units": None} if len(sample_figures) > 1 else {}
        return fields | {"interval_method": "none: no scored units yet"} | kept
    figures = benchmark.figures(units)
    found, fields["interval_method"], reasons = figure_intervals_and_reasons(benchmark, units, figures)
    fields["intervals"] = {name: None if found[name] is None else found[name].to_dict() for name in figures}
    if reasons:
        fields["interval_notes"] = reasons
    fields["points"] = {name: figure.point() for name, figure in figures.items()}
    for name, (interval, how) in benchmark.fitted_intervals(sample_figures[0]).items():
        fields["intervals"][name] = interval
        fields["interval_method"] += f"; {name}: {how}"
    fields |= judge_noise(benchmark, units, tables, found)
    if len(sample_figures) > 1:
        fields["sample_units"] = sample_units(tables)
    return fields


def sample_units(tables: list[UnitTable]) -> dict[str, Any]:
    """scores.json's `sample_units` (`schema.SampleUnits`): each judge sample's unit columns, null for NaN."""
    return {
        "ids": list(tables[0].ids),
        "samples": [
            {
                name: [float(value) if np.isfinite(value) else None for value in column]
                for name, column in t.columns.items()
            }
            for t in tables
        ],
    }


class UnitsNotKept(LongformEvalError, ValueError):
    """A scores.json of several judge samples that does not keep each sample's units (written before they were)."""


def stored_units(benchmark: Benchmark, scores: RunScores) -> UnitTable | None:
    """The units a run's figures rest on, from its scores.json alone (as `run_units` gives them when scoring): the
    per-unit records' table; with several judge samples the mean of the samples' tables kept in `sample_units`."""
    first = benchmark.unit_table(scores.figures)
    if scores.judge_samples == 1 or first is None or not len(first):
        return first
    if "sample_units" not in scores.model_fields_set:
        raise UnitsNotKept(
            "it keeps the units of its first judge sample only (written before every sample's were kept)"
        )
    kept = scores.sample_units
    if kept is None:  # a sample without scored units: the run's figures have no interval (`run_units`)
        return None
    if tuple(kept.ids) != first.ids:
        raise UnitsNotKept("field 'sample_units.ids': not the units of its per-unit records")
    tables = [
        replace(
            first,
            columns={
                name: np.array([np.nan if v is None else v for v in column], dtype=float)
                for name, column in columns.items()
            },
        )
        for columns in kept.samples
    ]
    return mean_over_samples(tables)


def judge_noise(benchmark: Benchmark, units: UnitTable, tables: list[UnitTable], found: dict) -> dict[str, Any]:
    """judge_sd and, per figure, the shares of its variance from the prompts and from the judge."""
    column = benchmark.judge_noise_column
    if column is None or len(tables) < 2:
        return {"variance_split": NOT_MEASURED} if len(tables) < 2 else {}
    samples = sample_matrix(tables, column)
    split = {}
    for name, interval in found.items():
        if interval is None:
            continue
        parts = split_variance(column_figure(benchmark, units, column, name), samples, interval.se)
        split[name] = None if parts is None else parts.to_dict() | what_more_buys(parts)
    return {"judge_sd": judge_sd(samples), "variance_split": split}


def what_more_buys(parts: VarianceSplit) -> dict[str, float]:
    """The figure's SE with twice the prompts, and with twice the judge samples per call."""
    return {
        "se_twice_the_prompts": parts.se_with(prompts=2 * parts.n),
        "se_twice_the_judge_samples": parts.se_with(judge_samples=2 * parts.judge_samples),
    }


def apply_points(benchmark: Benchmark, scores: dict[str, Any], points: dict[str, float | None]) -> None:
    """Write the figures computed over all judge samples where scores.json keeps them."""
    for name, value in points.items():
        *parents, leaf = benchmark.figure_path(name)
        target = scores
        for key in parents:
            target = target.get(key)
            if not isinstance(target, dict):
                break
        else:
            target[leaf] = value
