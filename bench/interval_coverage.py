"""Coverage of the 95% intervals by simulation: how often a figure's interval holds the true value, by method.

Populations: HelloBench's released GPT-4o verdicts (main experiment), each model's scored rows as a run's scores.json
holds them (`hellobench_table2_intervals.score_model`), synthetic ones that are hard on purpose (`hard_populations`:
near the top with rare zeros, heavy tails, bimodal tasks) and ones with rare failures (`hard_populations.RATES`: a
drawn prompt scoring 0 with probability 0 / 0.2 / 0.5 / 1%; three zeros in one task; discrete scores near the top). The
truth is the figure on the whole population (a rare failure's rate included). A simulated benchmark draws n prompts
per task (with replacement: i.i.d. prompts, the superpopulation an interval speaks of), computes the figure and its
interval as a run does, and counts whether it holds the truth (a draw without an interval counts as a miss). Every
cell shows the package's method and, on the same draws, the alternatives it was chosen over:

- one model, `overall`, n = 5 / 10 / 30 per task: the package (t on the logit of -300..100, the far side reaching as far
  as failures the sample does not show could move the figure, `intervals.unseen_reach`, the near side paying for it,
  `near_quantile`, and reaching no further than a sample showing more failures than their rate needs, `shown_reach`),
  the package before it (the far side's SE widened by a fixed allowance for failures on 0.25% of each
  task's prompts: "before"), plain t (clipped), t with the package's reach but no logit (and a symmetric near side), the
  logit alone, the studentized bootstrap (`bootstrap_t`, 2,000 resamples, as the package computed it before the t
  interval);
- paired difference of two models on the same drawn prompts: the package (t with each side's reach for an unseen
  failure, up to `PAIRED_RATE`, of the run whose failure moves the difference that way, `paired_difference(...,
  scale=)`), before, plain t, bootstrap-t;
- one task with one prompt, the others 5 / 30 (and 10 beside the rare failures; `sparse.pooled_interval`, as a run
  computes it: t on the borrowed variance, with the far side's reach and the near side paying for it), before (no
  allowance on this path), and the same spread on the scale's logit;
- `--judgements` (the upstream repository's 23 models): the 20 models that played no part in choosing the method ("held
  out"), one model at 5 / 10 / 30 per task and the pairs of models next to each other by score: coverage and the width
  against the package before;
- power plans (stated at least 80%): two references, by simulation (`simulated_plan`); one reference (the model of the
  pair that varies less), the other model's SE bounded by the scale (`power.scale_bound_se`), and the "about" size that
  takes the other model to vary as the reference does. The difference to detect is set so a normal plan on the pair's
  paired SE asks about 5 / 10 / 30 prompts per task; model a's row scores are shifted so the true difference is that;
  the cell gives how often the planned run's paired interval excludes 0 in the right direction (the achieved power), the
  power the plan states and its prompts.

    python bench/interval_coverage.py [--simulations 2000] [--seed 0] [--only released|hard|rare|held-out]
        [--judgements DIR]  # DIR: the upstream results/judgements/main_exp (hellobench_table2_intervals.py says how)
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np
from scipy.special import expit

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bootstrap_t import studentized  # noqa: E402
from hard_populations import CLUSTERED, DISCRETE, PAIRS, RARE_PAIRS, RATES, hard_populations  # noqa: E402
from hellobench_table2_intervals import model_folders, score_model  # noqa: E402

from longform_eval.dataset_builder.hellobench import NAME, TASKS  # noqa: E402
from longform_eval.inference.report.sections.context import JUDGEMENTS, main_prompts, released_source  # noqa: E402
from longform_eval.metric.helloeval.uncertainty import helloeval_figures  # noqa: E402
from longform_eval.metric.helloeval.weights import task_of_subcategory  # noqa: E402
from longform_eval.metric.uncertainty import Design, paired_difference, prompts_needed  # noqa: E402
from longform_eval.metric.uncertainty.comparison import difference_figure  # noqa: E402
from longform_eval.metric.uncertainty.intervals import (  # noqa: E402
    DEFAULT_LEVEL,
    clip,
    figure_interval,
    measured,
    quantile,
    scale_interval,
    t_interval,
)
from longform_eval.metric.uncertainty.power import scale_bound_se  # noqa: E402
from longform_eval.metric.uncertainty.power_simulation import PairedReference, allocate, simulated_plan  # noqa: E402
from longform_eval.metric.uncertainty.sparse import pooled_interval  # noqa: E402
from longform_eval.metric.uncertainty.unseen_failures import failed_units, far_below, unseen_reach  # noqa: E402

SCALE = (-300.0, 100.0)
ROUNDS = 2000  # the bootstrap-t's resamples
SINGLE_METHODS = ("package", "before", "t", "t + reach", "logit", "bootstrap-t")
PAIRED_METHODS = ("package", "before", "t", "bootstrap-t")
SPARSE_METHODS = ("package", "before", "logit")
RELEASED = ("gpt4o_0806", "llama31_8b", "qwen2_7b")
RELEASED_PAIRS = (("gpt4o_0806", "llama31_8b"), ("gpt4o_0806", "qwen2_7b"), ("llama31_8b", "qwen2_7b"))
BEFORE_SHARE = 0.0025  # the package before: an allowance for failures on 0.25% of each task's prompts


def overall(scores: np.ndarray, tasks: list[str]):
    return helloeval_figures(scores, tasks)["overall"]


class Population:
    """Row scores per model over the prompts of `tasks`; `rates`: a model's chance that a drawn prompt scores 0."""

    def __init__(self, scores: dict[str, np.ndarray], tasks: np.ndarray, rates: dict[str, float] | None = None) -> None:
        self.scores, self.tasks, self.rates = scores, tasks, rates or {}

    def values(self, name: str, picked: np.ndarray, rng: np.random.Generator, shift: float = 0.0) -> np.ndarray:
        """The drawn prompts' rows (+ `shift`), a failure (0) drawn with each where the model has a rate."""
        found = self.scores[name][picked] + shift
        if name in self.rates:
            found = np.where(rng.random(len(picked)) < self.rates[name], 0.0, found)
        return found

    def rows(self, *names: str) -> np.ndarray:
        return np.flatnonzero(np.logical_and.reduce([np.isfinite(self.scores[n]) for n in names]))

    def by_task(self, rows: np.ndarray) -> dict[str, np.ndarray]:
        return {t: rows[self.tasks[rows] == t] for t in TASKS}

    def truth(self, name: str, rows: np.ndarray, shift: float = 0.0) -> float:
        expected = (self.scores[name][rows] + shift) * (1 - self.rates.get(name, 0.0))  # a failure scores 0
        return overall(expected, list(self.tasks[rows])).point()


def draw(rng: np.random.Generator, by_task: dict[str, np.ndarray], sizes: dict[str, int]) -> np.ndarray:
    return np.concatenate([rng.choice(by_task[t], sizes[t], replace=True) for t in TASKS if sizes[t]])


def bootstrap_t(figure, design: Design, bounds=None) -> tuple[float, float] | None:
    """The former method: the studentized bootstrap's interval (Student's t on fewer than 20 units or where most
    resamples miss a rare value), clipped."""
    found, reason = measured(figure, design)
    if found is None or reason is not None:
        return None
    point, spread = figure.point(), found.spread
    draws = studentized(found.z, found.rests, design, ROUNDS, 0)
    if draws is None or not draws.usable(0.95):
        half = quantile(0.95, spread.df) * spread.se
        low, high = point - half, point + half
    else:
        below, above = draws.quantiles(0.95)
        low, high = point - above * spread.se, point - below * spread.se
    return clip(point, low, high, bounds)[1:3]


def before_floor(point: float, n: int, strata: int) -> float:
    """The package before: the far side's allowance for failures on BEFORE_SHARE of each stratum's units unseen (the
    root mean square of the bias they leave, over samples)."""
    distance = max(point - SCALE[0], SCALE[1] - point)
    return BEFORE_SHARE * distance * math.sqrt((1 - BEFORE_SHARE) ** (n / max(strata, 1)))


def before_single(found, strata: int) -> tuple[float, float]:
    """The package before, from the package's interval on the same draw (its SE, df and units): the t interval on
    the scale's logit, the far side's SE sqrt(se^2 + before_floor^2); an interval without spread (Wilson's at an end
    of the scale) as the package gives it."""
    point, se = found.point, found.se
    if not SCALE[0] < point < SCALE[1] or not se > 0:
        return found.low, found.high
    share, width = (point - SCALE[0]) / (SCALE[1] - SCALE[0]), SCALE[1] - SCALE[0]
    slope, q, far = (
        1 / (share * (1 - share) * width),
        quantile(0.95, found.df),
        math.hypot(se, before_floor(point, found.n, strata)),
    )
    below, above = (far, se) if share > 0.5 else (se, far)
    centre = math.log(share / (1 - share))
    low, high = (
        SCALE[0] + width * expit(centre - q * below * slope),
        SCALE[0] + width * expit(centre + q * above * slope),
    )
    return min(low, point), max(high, point)


def before_paired(points: tuple[float, float], plain, strata: int) -> tuple[float, float]:
    """The package before on a paired difference: the t interval, each side's SE widened by the fixed allowance of
    the run whose failure moves a - b that way (`before_floor`), cut to the difference's range."""
    floors = [before_floor(point, plain.n_paired, strata) for point in points]
    lowers = (far_below(points[0], SCALE), not far_below(points[1], SCALE))
    below = math.hypot(*(f for f, it in zip(floors, lowers, strict=True) if it))
    above = math.hypot(*(f for f, it in zip(floors, lowers, strict=True) if not it))
    q, extent = quantile(0.95, plain.df), SCALE[1] - SCALE[0]
    point = plain.difference
    low, high = point - q * math.hypot(plain.se, below), point + q * math.hypot(plain.se, above)
    return max(low, -extent), min(high, extent)


def single_methods(figure, design: Design, alternatives: bool = True) -> dict[str, tuple[float, float]]:
    """The package's interval and, on the same draw, the package before, plain t, t with the far side's reach but no
    logit, the logit without the reach, and bootstrap-t."""
    found = figure_interval(figure, design, 0.95, SCALE)
    if found is None:
        return {}
    strata = len(design.slices)
    if not alternatives:
        return {"package": (found.low, found.high), "before": before_single(found, strata)}
    q, point = quantile(0.95, found.df), found.point
    distance = max(point - SCALE[0], SCALE[1] - point)
    reach = unseen_reach([(distance, failed_units(figure, point, SCALE))], found.n, found.se, DEFAULT_LEVEL)
    half = q * found.se
    far = max(half, reach) if far_below(point, SCALE) else half
    near = half if far_below(point, SCALE) else max(half, reach)
    logit = scale_interval(found.point, found.se, found.df, found.n, 0.95, SCALE)
    return {
        "package": (found.low, found.high),
        "before": before_single(found, strata),
        "t": clip(point, point - half, point + half, SCALE)[1:3],
        "t + reach": clip(point, point - far, point + near, SCALE)[1:3],
        "logit": (logit.low, logit.high),
        "bootstrap-t": bootstrap_t(figure, design, SCALE),
    }


def paired_methods(a, b, design: Design, alternatives: bool = True) -> dict[str, tuple[float, float]]:
    """The package's interval (t with each side's reach for an unseen failure) and, on the same draw, the package
    before, plain t and bootstrap-t."""
    found, plain = paired_difference(a, b, design, scale=SCALE), paired_difference(a, b, design)
    if found is None or plain is None:
        return {}
    methods = {
        "package": (found.low, found.high),
        "before": before_paired((a.point(), b.point()), plain, len(design.slices)),
    }
    if not alternatives:
        return methods
    extent = SCALE[1] - SCALE[0]  # the difference's range, as the package cuts it
    bootstrap = bootstrap_t(difference_figure(a, b), design, (-extent, extent))
    return methods | {"t": (plain.low, plain.high), "bootstrap-t": bootstrap}


def tally(found: dict[str, list], truth: float, methods: dict[str, tuple[float, float] | None]) -> None:
    for name, bounds in methods.items():
        if bounds is not None:
            found.setdefault(name, []).append(
                (bounds[0] <= truth <= bounds[1], bounds[1] - bounds[0], truth < bounds[0])
            )


class Cell(tuple):
    """(coverage over all draws, an absent interval a miss; mean width; misses below; misses above; draws without)."""

    @property
    def coverage(self) -> float:
        return self[0]

    @property
    def width(self) -> float:
        return self[1]


def summary(found: dict[str, list], sims: int) -> dict[str, Cell]:
    """Per method: coverage over all draws (an absent interval a miss), mean width, the share of draws whose interval
    lies above the truth (a miss below) and below it, and the draws without an interval."""
    return {
        name: Cell(
            (
                sum(h for h, _, _ in rows) / sims,
                float(np.mean([w for _, w, _ in rows])),
                sum(b for h, _, b in rows if not h) / sims,
                sum(not b for h, _, b in rows if not h) / sims,
                sims - len(rows),
            )
        )
        for name, rows in found.items()
    }


def one_model(pop: Population, name: str, n: int, sims: int, rng, alternatives: bool = True) -> dict[str, Cell]:
    rows = pop.rows(name)
    truth, by_task, found = pop.truth(name, rows), pop.by_task(rows), {}
    for _ in range(sims):
        picked = draw(rng, by_task, dict.fromkeys(TASKS, n))
        tasks = list(pop.tasks[picked])
        figure = overall(pop.values(name, picked, rng), tasks)
        tally(found, truth, single_methods(figure, Design.stratified(tasks, by="task"), alternatives))
    return summary(found, sims)


def paired(pop: Population, a: str, b: str, sizes, sims: int, rng, shift: float = 0.0, alternatives: bool = True):
    """Per method (coverage, width, ...) of the true difference, and the package's share distinguishable in its
    direction (the achieved power where a true difference is planted)."""
    rows = pop.rows(a, b)
    truth = pop.truth(a, rows, shift) - pop.truth(b, rows)
    by_task, found, detected = pop.by_task(rows), {}, 0
    sizes = dict.fromkeys(TASKS, sizes) if isinstance(sizes, int) else sizes
    for _ in range(sims):
        picked = draw(rng, by_task, sizes)
        tasks, design = list(pop.tasks[picked]), Design.stratified(list(pop.tasks[picked]), by="task")
        fa, fb = overall(pop.values(a, picked, rng, shift), tasks), overall(pop.values(b, picked, rng), tasks)
        planted = {"package": package_bounds(fa, fb, design)} if shift else None  # a power plan's run
        methods = planted or paired_methods(fa, fb, design, alternatives)
        tally(found, truth, methods)
        low, high = methods.get("package") or (0.0, 0.0)
        detected += (low > 0 or high < 0) and np.sign(low + high) == np.sign(truth)
    return summary(found, sims), detected / sims


def package_bounds(a, b, design: Design) -> tuple[float, float] | None:
    found = paired_difference(a, b, design, scale=SCALE)
    return None if found is None else (found.low, found.high)


def one_sparse(pop: Population, name: str, n: int, sims: int, rng) -> dict[str, Cell]:
    """The package's interval where one task holds one prompt (t on the borrowed variance with the far side's reach,
    `sparse.pooled_interval`) and, on the same draw, the package before (no reach) and the same spread on the
    scale's logit."""
    rows = pop.rows(name)
    truth, by_task, found = pop.truth(name, rows), pop.by_task(rows), {}
    for k in range(sims):
        picked = draw(rng, by_task, dict.fromkeys(TASKS, n) | {TASKS[k % len(TASKS)]: 1})
        tasks, design = list(pop.tasks[picked]), Design.stratified(list(pop.tasks[picked]), by="task")
        values = pop.values(name, picked, rng)
        package, _ = pooled_interval(lambda v, tasks=tasks: overall(v, tasks), values, design=design, bounds=SCALE)
        methods = {"package": None if package is None else (package.low, package.high)}
        if package is not None:
            before = t_interval(package.point, package.se, package.df, package.n, 0.95, SCALE)
            logit = scale_interval(package.point, package.se, package.df, package.n, 0.95, SCALE)
            methods |= {"before": (before.low, before.high), "logit": (logit.low, logit.high)}
        tally(found, truth, methods)
    return summary(found, sims)


def power_cells(pop: Population, a: str, b: str, per_task: int, sims: int, rng) -> list[str]:
    """Two-reference (simulated), one-reference (bounded) and one-reference "about" plans: achieved (stated, size)."""
    rows = pop.rows(a, b)
    tasks = list(pop.tasks[rows])
    design = Design.stratified(tasks, by="task")
    fa, fb = overall(pop.scores[a][rows], tasks), overall(pop.scores[b][rows], tasks)
    reference = paired_difference(fa, fb, design)
    detect = 2.8 * reference.se * np.sqrt(len(rows) / (per_task * len(TASKS)))
    shift = (detect - reference.difference) / 4
    sizes = [tasks.count(t) for t in design.stratum_names]
    plan = simulated_plan(PairedReference.of_pair(fa, fb, design, SCALE), detect)  # the interval report prints
    # one reference: the model that varies less (the plan must then allow for the other's larger spread)
    own = min((figure_interval(f, design, 0.95, None) for f in (fa, fb)), key=lambda found: found.se)
    bound = scale_bound_se(SCALE[1] - SCALE[0], sizes)
    df_share = min(own.df / (len(rows) - len(sizes)), 1.0)
    plans = {
        "two references": (plan.prompts, plan.expected_power),
        "one reference": (one_plan(detect, math.hypot(own.se, bound), len(rows), len(sizes), df_share), 0.8),
        "one, about": (one_plan(detect, math.sqrt(2) * own.se, len(rows), len(sizes), df_share), 0.8),
    }
    cells = []
    for name, (prompts, stated) in plans.items():
        counts = dict(zip(design.stratum_names, allocate(prompts, sizes), strict=True))
        _, achieved = paired(pop, a, b, counts, sims, rng, shift)
        cells.append(f"{name}: {achieved:.1%} ({stated:.1%}, {prompts})")
    return cells


def one_plan(detect: float, se: float, n: int, strata: int, df_share: float) -> int:
    return prompts_needed(detect, se, n, paired=False, strata=strata, df_share=df_share).prompts


def load(seed: int, judgements: Path | None = None) -> tuple[Population, list[str]]:
    """The released and synthetic populations and, from `judgements` (the upstream 23 models), the held-out models
    (those not in the shared data folder) with their names."""
    source = released_source(NAME, None)
    if source is None:
        sys.exit("error: no HelloBench data folder ($LONGFORM_EVAL_SOURCE/hellobench)")
    prompts = main_prompts(source)
    task_of = task_of_subcategory()
    tasks = np.array([task_of[sub] for sub, _ in prompts.values()], dtype=object)
    released = {m.name: m.row_scores for m in (score_model(f, prompts) for f in model_folders(source / JUDGEMENTS))}
    held_out = {}
    if judgements is not None:
        folders = [f for f in model_folders(judgements) if f.name not in released]
        held_out = {m.name: m.row_scores for m in (score_model(f, prompts) for f in folders)}
    scores = released | hard_populations(tasks, released["gpt4o_0806"], seed) | held_out
    return Population(scores, tasks, RATES), list(held_out)


def cell_text(found: dict[str, Cell], methods: tuple[str, ...], misses: bool = False) -> str:
    """Coverage (mean width) per method; `misses`: the package's misses below / above and draws without an
    interval."""
    text = " / ".join(f"{found[m][0]:.1%} ({found[m][1]:.1f})" for m in methods if m in found)
    if misses and "package" in found:
        cell = found["package"]
        text += f" [{cell[2]:.1%} below, {cell[3]:.1%} above" + (f", {cell[4]} none]" if cell[4] else "]")
    return text


def single_table(pop: Population, singles: list[str], sims: int, rng, misses: bool = False) -> None:
    print("\n| cell | " + " | ".join(singles) + " |\n|---|" + "---|" * len(singles))
    for n in (5, 10, 30):
        cells = [cell_text(one_model(pop, m, n, sims, rng), SINGLE_METHODS, misses) for m in singles]
        print(f"| one model, {n} per task | " + " | ".join(cells) + " |", flush=True)
    for n in (5, 10, 30) if misses else (5, 30):
        cells = [cell_text(one_sparse(pop, m, n, sims, rng), SPARSE_METHODS, misses) for m in singles]
        print(f"| one task with one prompt, others {n} | " + " | ".join(cells) + " |", flush=True)


def paired_table(pop: Population, pairs: list[tuple[str, str]], sims: int, rng, misses: bool = False) -> None:
    print("\n| cell | " + " | ".join(f"{a} - {b}" for a, b in pairs) + " |\n|---|" + "---|" * len(pairs))
    for n in (5, 10, 30):
        cells = [cell_text(paired(pop, a, b, n, sims, rng)[0], PAIRED_METHODS, misses) for a, b in pairs]
        print(f"| paired difference, {n} per task | " + " | ".join(cells) + " |", flush=True)


def held_out_tables(pop: Population, held_out: list[str], sims: int, rng) -> None:
    """The held-out models: each at 5 / 10 / 30 per task, and the pairs next to each other by score: the package's
    coverage (the package before's) and its width against the package before's, then the spread of that change."""
    changes: dict[str, list[float]] = {}
    print("\n| held-out model | 5 per task | 10 per task | 30 per task |\n|---|---|---|---|")
    for name in held_out:
        cells = []
        for n in (5, 10, 30):
            found = one_model(pop, name, n, sims, rng, alternatives=False)
            change = found["package"].width / found["before"].width - 1
            changes.setdefault(f"one model, {n} per task", []).append(change)
            cells.append(f"{found['package'][0]:.1%} ({found['before'][0]:.1%}), width {change:+.1%}")
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)
    ranked = sorted(held_out, key=lambda name: -pop.truth(name, pop.rows(name)))
    pairs = list(zip(ranked[:-1], ranked[1:], strict=True))
    print("\n| held-out pair (next by score) | 5 per task | 10 per task | 30 per task |\n|---|---|---|---|")
    for a, b in pairs:
        cells = []
        for n in (5, 10, 30):
            found = paired(pop, a, b, n, sims, rng, alternatives=False)[0]
            change = found["package"].width / found["before"].width - 1
            changes.setdefault(f"paired, {n} per task", []).append(change)
            cells.append(f"{found['package'][0]:.1%} ({found['before'][0]:.1%}), width {change:+.1%}")
        print(f"| {a} - {b} | " + " | ".join(cells) + " |", flush=True)
    print("\n| width against the package before | mean | smallest | largest |\n|---|---|---|---|")
    for name, values in changes.items():
        print(f"| {name} | {np.mean(values):+.1%} | {min(values):+.1%} | {max(values):+.1%} |")


def monte_carlo_se(coverage: float, draws: int) -> float:
    """The simulation's own standard error of a coverage, in percentage points."""
    return 100 * math.sqrt(coverage * (1 - coverage) / draws)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--simulations", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", choices=("released", "hard", "rare", "held-out"), help="only these populations")
    parser.add_argument("--judgements", type=Path, help="the upstream judgements (main_exp): adds the held-out models")
    args = parser.parse_args()
    started, rng, sims = time.perf_counter(), np.random.default_rng(args.seed), args.simulations
    pop, held_out = load(args.seed, args.judgements)
    if args.only == "held-out" and not held_out:
        sys.exit("error: --only held-out needs --judgements (the upstream models not in the shared data)")
    hard, rare = [a for a, _ in PAIRS], [*RATES, CLUSTERED, DISCRETE]
    groups = {"released": (list(RELEASED), list(RELEASED_PAIRS)), "hard": (hard, list(PAIRS))}
    groups["rare"] = (rare + (["qwen_max"] if "qwen_max" in held_out else []), list(RARE_PAIRS))
    print(
        f"{time.strftime('%Y-%m-%d %H:%M %Z')}, {platform.machine()}, {os.cpu_count()} CPUs, Python "
        f"{platform.python_version()}; {sims} simulated benchmarks per cell, seed {args.seed}, draws i.i.d.\n"
        f"cells: coverage (mean width on -300..100); one model: {' / '.join(SINGLE_METHODS)}; one task with one "
        f"prompt: {' / '.join(SPARSE_METHODS)}; paired: {' / '.join(PAIRED_METHODS)}; [the package's misses: "
        "the truth below / above its interval, draws without one]\n"
        f"Monte Carlo SE of a cell's coverage c: sqrt(c (1 - c) / {sims}), {monte_carlo_se(0.97, sims):.2f} points at "
        f"97%, {monte_carlo_se(0.95, sims):.2f} at 95%, {monte_carlo_se(0.93, sims):.2f} at 93%"
    )
    for group, (singles, pairs) in groups.items():
        if args.only in (None, group):
            print(f"\n{group} populations:")
            single_table(pop, singles, sims, rng, misses=group == "rare")
            paired_table(pop, pairs, sims, rng, misses=group == "rare")
    if args.only in (None, "released"):
        names = " | ".join(f"{a} - {b}" for a, b in RELEASED_PAIRS)
        print(f"\n| power plan (at least 80%): achieved (stated, prompts) | {names} |")
        print("|---|" + "---|" * len(RELEASED_PAIRS))
        for n in (5, 10, 30):
            cells = ["<br>".join(power_cells(pop, a, b, n, sims, rng)) for a, b in RELEASED_PAIRS]
            print(f"| about {n} per task | " + " | ".join(cells) + " |", flush=True)
    if held_out and args.only in (None, "held-out"):
        print(f"\nheld-out models ({len(held_out)}, from {args.judgements}): the package (the package before)")
        held_out_tables(pop, held_out, sims, rng)
    print(f"\ntime: {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
