"""How many prompts a planned run needs to detect a difference: `run --dry-run --power-reference RUN --detect D`.

The variance comes from scored reference runs of the planned benchmark config. Two references: their paired
difference on the units both scored, and the plan by simulation (`power_simulation.simulated_plan`): planned runs
drawn from the references' own per-unit differences, each with the interval `report` prints for it (the allowance
for an unseen failure included, none where the units differ by float noise alone), the fewest units whose
share of intervals excluding 0 reaches 80% (alpha 0.05), its power measured again on fresh draws. One reference:
it says nothing of how much the other model varies, and a plan that takes it to vary as the reference does falls
short where it varies more (65-74% where 80% was stated). So the plan bounds the other model's SE by the most a
figure on the benchmark's scale can have (`power.scale_bound_se`) and the SE of a difference of two runs on
different prompts by sqrt(se^2 + bound^2), the noncentral t test's plan at df the reference's share of units -
strata (`prompts_needed`): conservative whatever the other model is, and printed as what it is, a ceiling (the
bound is commonly three times the reference's own SE, so the ceiling asks 7.6-10.4x a two-reference plan's size on
the released runs). Beside it, "about" the size if both vary as the reference does (sqrt(2) x its SE), which is no
promise. Two references give a plan that keeps its word without the bound.
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from longform_eval.common.plurals import counted
from longform_eval.metric.uncertainty import independent_se, minimum_detectable_difference, prompts_needed
from longform_eval.metric.uncertainty.intervals import figure_spread
from longform_eval.metric.uncertainty.power import PowerPlan, scale_bound_se
from longform_eval.metric.uncertainty.power_simulation import PairedReference, simulated_plan
from longform_eval.metric.uncertainty.unit_intervals import figure_bounds
from longform_eval.metric.uncertainty.units import UnitTable
from longform_eval.metric.uncertainty.variance import rests_on

from ..runner import RunConfig
from .comparisons import ComparedRun, aligned, compare, compared_runs


@dataclass(frozen=True)
class PowerReference:
    """What a plan rests on: the reference runs, the figure, the SE of a difference, the units it was measured on
    and whether it is a paired one (`share`: the part of the references' scored units the figure rests on, e.g. one
    task's)."""

    runs: list[ComparedRun]
    figure: str
    se_difference: float
    n_reference: int
    paired: bool
    share: float
    detect: float
    strata: int = 1
    df_share: float = 1.0
    simulated_from: PairedReference | None = None  # two paired references: the plan simulates from their units
    bound_se: float | None = None  # one reference: the most SE the other model's figure can have (None: no scale)

    def df_at(self, units: int) -> float:
        return max(self.df_share * (units - self.strata), 1.0)


def check_power_arguments(args: argparse.Namespace) -> None:
    """The --power-* options and --detect go together, and only with --dry-run."""
    references = args.power_reference or []
    if args.detect is None:
        given = "--power-reference" if references else "--power-figure" if args.power_figure else None
        if given:
            raise ValueError(f"{given}: plans a run's power, so it needs --detect D (the difference to detect)")
        return
    if not args.dry_run:
        raise ValueError("--detect: plans a run, so it needs --dry-run (the prompts a run needs, before it runs)")
    if not references:
        raise ValueError("--detect: needs --power-reference RUN, a scored run of the planned benchmark config")
    if len(references) > 2:
        raise ValueError(f"--power-reference: give one or two reference runs, got {len(references)}")


def power_reference(args: argparse.Namespace, planned: list[RunConfig]) -> PowerReference | None:
    """The plan's reference, every option checked (before any run folder is touched); None without --detect."""
    check_power_arguments(args)
    if args.detect is None:
        return None
    folders: list[Path] = args.power_reference
    runs = compared_runs(folders)
    labels = {run.label for run in runs}
    for folder in folders:
        if str(folder) not in labels:
            raise ValueError(f"--power-reference {folder}: its scores.json has no per-unit records to plan from")
    check_configs(runs, planned)
    figure = reference_figure(runs[0], args.power_figure)
    se, n, paired, df = difference_se(runs, figure)
    tables = aligned([run.units for run in runs], runs[0].benchmark.judge_noise_column)
    scored = len(tables[0])
    strata = len(runs[0].units.design().slices)
    df_share = min(df / (n - strata), 1.0) if df and n > strata else 1.0
    simulated = paired_reference(runs, tables, figure) if paired and len(runs) == 2 else None
    share = n / scored if scored else 1.0
    bound = scale_bound(runs[0], figure) if len(runs) == 1 else None
    return PowerReference(runs, figure, se, n, paired, share, args.detect, strata, df_share, simulated, bound)


def scale_bound(run: ComparedRun, figure: str) -> float | None:
    """The largest SE `figure` can have over the run's units whatever the model (its scale's width, the strata sizes
    of the units it rests on); None where the figure's scale is not known."""
    scale = figure_bounds(run.benchmark, [figure])[figure]
    built = run.benchmark.figures(run.units).get(figure)
    if scale is None or built is None:
        return None
    sizes = [len(values) for values in run.units.design().split(np.zeros(built.n_units), rests_on(built))]
    return scale_bound_se(scale[1] - scale[0], [size for size in sizes if size])


def paired_reference(runs: list[ComparedRun], tables: list[UnitTable], figure: str) -> PairedReference | None:
    """The two references' paired difference on `figure` over their `aligned` tables, per unit, to simulate planned
    runs from, with the figure's scale so that each simulated run's interval is the one `report` prints (None: it
    rests on one unit per stratum, does not vary beyond float noise, or its derivative is undefined)."""
    a, b = (run.benchmark.figures(table)[figure] for run, table in zip(runs, tables, strict=True))
    scale = figure_bounds(runs[0].benchmark, [figure])[figure]  # as `report` takes it: the same allowance
    try:
        return PairedReference.of_pair(a, b, tables[0].design(), scale)
    except ValueError:
        return None


def check_configs(runs: list[ComparedRun], planned: list[RunConfig]) -> None:
    if len(runs) == 2 and runs[0].config != runs[1].config:
        raise ValueError(
            f"--power-reference {runs[1].label}: a {runs[1].config} run, the first reference a {runs[0].config} one; "
            "two references must be runs of the same benchmark config"
        )
    names = [f"{config.benchmark}:{config.benchmark_config}" for config in planned]
    if base_config(runs[0]) not in names:
        raise ValueError(
            f"--power-reference {runs[0].label}: a {base_config(runs[0])} run, but the planned runs are "
            f"{', '.join(names)}; give a reference run of the benchmark config you plan"
        )


def base_config(run: ComparedRun) -> str:
    return f"{run.scores.benchmark}:{run.scores.config}"


def reference_figure(run: ComparedRun, named: str | None) -> str:
    names = run.figure_names
    if not names:
        raise ValueError(f"--power-reference {run.label}: its scores.json has no figure with an interval to plan from")
    figure = named or run.benchmark.headline_of(names)
    if figure not in names:
        raise ValueError(f"--power-figure {named}: {run.label} has no interval on it; its figures: {', '.join(names)}")
    return figure


def difference_se(runs: list[ComparedRun], figure: str) -> tuple[float, int, bool, float | None]:
    """(SE of a difference, the units it was measured on, paired, its t df): one run's SE times sqrt(2), or the two
    runs' paired SE (unpaired for a refitted figure)."""
    if len(runs) == 1:
        interval = runs[0].scores.intervals[figure]
        se, n = interval.se, interval.n
        return (independent_se(se) if se else 0.0), n, False, single_df(runs[0], figure)
    entry = next(e for e in compare(*runs) if e["figure"] == figure)
    n = entry["n_paired"] if entry["paired"] else runs[0].scores.intervals[figure].n
    return entry["se"] or 0.0, n, entry["paired"], entry.get("df")


def single_df(run: ComparedRun, figure: str) -> float | None:
    """The t df of a run's own interval on `figure` (None: a refitted figure, or none)."""
    built = run.benchmark.figures(run.units).get(figure)
    found = None if built is None else figure_spread(built, run.units.design())[0]
    return None if found is None else found.df


def power_lines(reference: PowerReference | None, config: RunConfig, planned: int) -> list[str]:
    """The plan for one planned run (nothing for a run of another benchmark config than the reference's)."""
    if reference is None or f"{config.benchmark}:{config.benchmark_config}" != base_config(reference.runs[0]):
        return []
    if reference.se_difference <= 0:
        return [f"  power: {reference.figure} has no SE in the references (no interval): nothing to plan from"]
    try:
        plan = plan_of(reference)
    except ValueError as error:  # not detectable at any size the plan tries
        return [
            f"  power on {reference.figure}: {source(reference)}",
            f"    a difference of {reference.detect:g}: {error}",
        ]
    unit = reference.runs[0].units.unit
    counting = max(1, round(planned * reference.share))
    se_planned = planned_se(reference) * math.sqrt(reference.n_reference / counting)
    detects = minimum_detectable_difference(se_planned, df=reference.df_at(counting))
    verdict = "suffice" if counting >= plan.prompts else "do not suffice"
    partial = reference.share < 1  # a figure on part of the units, e.g. one task's
    within = f" in {reference.figure}" if partial else ""
    counts = f" (at the references' share, {counting} of them count toward {reference.figure})" if partial else ""
    if reference.simulated_from is not None:
        how = f"by simulation: at least {plan.expected_power:.0%} at that size (the lower 95% bound of its measurement)"
    elif reference.bound_se is not None:
        ratio = reference.bound_se / (reference.se_difference / math.sqrt(2))
        how = (
            f"t test; a ceiling, not an estimate: the other model's SE taken at the most its scale allows, "
            f"{ratio:.1f}x this one's, so a model that varies as measured ones do needs far fewer"
        )
    else:
        how = "t test"
    needs = "at most " if reference.bound_se is not None else "about " if len(reference.runs) == 1 else ""
    lines = [
        f"  power on {reference.figure}: {source(reference)}",
        f"    a difference of {reference.detect:g} needs {needs}{counted(plan.prompts, unit, spec=',')}{within} at "
        f"80% power, alpha 0.05 ({how}); the planned {planned:,} {verdict}{counts}: they detect a difference of "
        f"{detects:.2f}",
    ]
    if reference.bound_se is not None:
        lines.append(typical_line(reference, unit, within))
    return lines


def planned_se(reference: PowerReference) -> float:
    """The SE of a difference the plan rests on: with one reference and a known scale, the bounded one."""
    if reference.bound_se is None:
        return reference.se_difference
    return math.hypot(reference.se_difference / math.sqrt(2), reference.bound_se)


def typical_line(reference: PowerReference, unit: str, within: str) -> str:
    """One reference: the size if the other model varies as the reference does (no promise)."""
    typical = prompts_needed(
        reference.detect,
        reference.se_difference,
        reference.n_reference,
        paired=False,
        strata=reference.strata,
        df_share=reference.df_share,
    )
    return (
        f"    about {counted(typical.prompts, unit, spec=',')}{within} if the other model varies as "
        f"{reference.runs[0].label} does (no promise: where it varies more the power is lower; for a size below the "
        "ceiling that keeps its word, give a second reference run: a plan by simulation)"
    )


def plan_of(reference: PowerReference) -> PowerPlan:
    """The simulated plan where two paired references give per-unit differences, else the noncentral t one."""
    if reference.simulated_from is not None:
        return simulated_plan(reference.simulated_from, reference.detect)
    return prompts_needed(
        reference.detect,
        planned_se(reference),
        reference.n_reference,
        paired=reference.paired,
        strata=reference.strata,
        df_share=reference.df_share,
    )


def source(reference: PowerReference) -> str:
    se, n, unit = reference.se_difference, reference.n_reference, reference.runs[0].units.unit
    if len(reference.runs) == 2:
        a, b = (run.label for run in reference.runs)
        if reference.paired:
            return f"paired SE {se:.3f} of {a} - {b} on the {n} {unit}s both scored"
        return f"SE {se:.3f} of {a} - {b} from the two runs' own SEs (a refitted figure: not paired)"
    own = se / math.sqrt(2)
    if reference.bound_se is None:
        return (
            f"SE {own:.3f} of {reference.runs[0].label} over {n} {unit}s; one reference and no known scale, so the "
            f"SE of a difference is taken as sqrt(2) x that = {se:.3f}, as if the other model varied as it does"
        )
    return (
        f"SE {own:.3f} of {reference.runs[0].label} over {n} {unit}s; one reference says nothing of the other "
        f"model, whose SE is bounded by the most its scale allows, {reference.bound_se:.3f}: the SE of a difference "
        f"of two runs on different {unit}s is at most {planned_se(reference):.3f}"
    )
