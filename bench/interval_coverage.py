"""Coverage of the 95% intervals by simulation: how often a figure's interval holds the true value, by method.

Populations: HelloBench's released GPT-4o verdicts (main experiment), each model's scored rows as a run's scores.json
holds them (`hellobench_table2_intervals.score_model`), and synthetic ones that are hard on purpose
(`hard_populations`: near the top with rare zeros, heavy tails, bimodal tasks). The truth is the figure on the whole
population. A simulated benchmark draws n prompts per task (with replacement: i.i.d. prompts, the superpopulation an
interval speaks of), computes the figure and its interval as a run does, and counts whether it holds the truth.
Every cell shows the package's method and, on the same draws, the alternatives it was chosen over:

- one model, `overall`, n = 5 / 10 / 30 per task: the package (t on the logit of -300..100 with the far side's floor,
  `intervals.scale_interval`), plain t (clipped), the studentized bootstrap (`bootstrap_t`, 2,000 resamples, as the
  package computed it before);
- paired difference of two models on the same drawn prompts: the package (t with each side's allowance for an
  unseen failure, `paired_difference(..., scale=)`), plain t, bootstrap-t;
- one task with one prompt, the others 5 / 30 (`sparse.pooled_interval`, as a run computes it: t on the borrowed
  variance), and the same spread on the scale's logit;
- power plans (stated at least 80%): two references, by simulation (`simulated_plan`); one reference (the model of
  the pair that varies less), the other model's SE bounded by the scale (`power.scale_bound_se`), and the "about"
  size that takes the other model to vary as the reference does. The difference to detect is set so a normal plan
  on the pair's paired SE asks about 5 / 10 / 30 prompts per task; model a's row scores are shifted so the true
  difference is that; the cell gives how often the planned run's paired interval excludes 0 in the right direction
  (the achieved power), the power the plan states and its prompts.

    python bench/interval_coverage.py [--simulations 2000] [--seed 0] [--only released|hard]
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bootstrap_t import studentized  # noqa: E402
from hard_populations import PAIRS, hard_populations  # noqa: E402
from hellobench_table2_intervals import model_folders, score_model  # noqa: E402

from longform_eval.dataset_builder.hellobench import NAME, TASKS  # noqa: E402
from longform_eval.inference.report.sections.context import JUDGEMENTS, main_prompts, released_source  # noqa: E402
from longform_eval.metric.helloeval.uncertainty import helloeval_figures  # noqa: E402
from longform_eval.metric.helloeval.weights import task_of_subcategory  # noqa: E402
from longform_eval.metric.uncertainty import Design, paired_difference, prompts_needed  # noqa: E402
from longform_eval.metric.uncertainty.comparison import difference_figure  # noqa: E402
from longform_eval.metric.uncertainty.intervals import (  # noqa: E402
    clip,
    far_floor,
    figure_interval,
    measured,
    quantile,
    scale_interval,
)
from longform_eval.metric.uncertainty.power import scale_bound_se  # noqa: E402
from longform_eval.metric.uncertainty.power_simulation import PairedReference, allocate, simulated_plan  # noqa: E402
from longform_eval.metric.uncertainty.sparse import pooled_interval  # noqa: E402

SCALE = (-300.0, 100.0)
ROUNDS = 2000  # the bootstrap-t's resamples
SINGLE_METHODS = ("package", "t", "t + allowance", "logit", "bootstrap-t")
PAIRED_METHODS = ("package", "t", "bootstrap-t")
RELEASED_PAIRS = (("gpt4o_0806", "llama31_8b"), ("gpt4o_0806", "qwen2_7b"), ("llama31_8b", "qwen2_7b"))


def overall(scores: np.ndarray, tasks: list[str]):
    return helloeval_figures(scores, tasks)["overall"]


class Population:
    def __init__(self, scores: dict[str, np.ndarray], tasks: np.ndarray) -> None:
        self.scores, self.tasks = scores, tasks

    def rows(self, *names: str) -> np.ndarray:
        return np.flatnonzero(np.logical_and.reduce([np.isfinite(self.scores[n]) for n in names]))

    def by_task(self, rows: np.ndarray) -> dict[str, np.ndarray]:
        return {t: rows[self.tasks[rows] == t] for t in TASKS}

    def truth(self, name: str, rows: np.ndarray, shift: float = 0.0) -> float:
        return overall(self.scores[name][rows] + shift, list(self.tasks[rows])).point()


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
    return clip(low, high, bounds)[:2]


def single_methods(figure, design: Design, alternatives: bool = True) -> dict[str, tuple[float, float]]:
    """The package's interval and, on the same draw, plain t, t with the far side's allowance but no logit, the
    logit without the allowance, and bootstrap-t."""
    found = figure_interval(figure, design, 0.95, SCALE)
    if found is None:
        return {}
    if not alternatives:
        return {"package": (found.low, found.high)}
    q, floor = quantile(0.95, found.df), far_floor(found.point, SCALE, found.n, len(design.slices))
    half, far = q * found.se, q * math.hypot(found.se, floor)
    logit = scale_interval(found.point, found.se, found.df, found.n, 0.95, SCALE)
    return {
        "package": (found.low, found.high),
        "t": clip(found.point - half, found.point + half, SCALE)[:2],
        "t + allowance": clip(found.point - far, found.point + half, SCALE)[:2],
        "logit": (logit.low, logit.high),
        "bootstrap-t": bootstrap_t(figure, design, SCALE),
    }


def paired_methods(a, b, design: Design) -> dict[str, tuple[float, float]]:
    """The package's interval (t with each side's allowance for an unseen failure) and, on the same draw, plain t and
    bootstrap-t."""
    found, plain = paired_difference(a, b, design, scale=SCALE), paired_difference(a, b, design)
    if found is None or plain is None:
        return {}
    return {
        "package": (found.low, found.high),
        "t": (plain.low, plain.high),
        "bootstrap-t": bootstrap_t(difference_figure(a, b), design),
    }


def tally(found: dict[str, list], truth: float, methods: dict[str, tuple[float, float] | None]) -> None:
    for name, bounds in methods.items():
        if bounds is not None:
            found.setdefault(name, []).append((bounds[0] <= truth <= bounds[1], bounds[1] - bounds[0]))


def summary(found: dict[str, list], sims: int) -> dict[str, tuple[float, float]]:
    """Per method (coverage over all draws, an absent interval a miss; mean width)."""
    return {
        name: (sum(h for h, _ in rows) / sims, float(np.mean([w for _, w in rows]))) for name, rows in found.items()
    }


def one_model(pop: Population, name: str, n: int, sims: int, rng) -> dict[str, tuple[float, float]]:
    rows = pop.rows(name)
    truth, by_task, found = pop.truth(name, rows), pop.by_task(rows), {}
    for _ in range(sims):
        picked = draw(rng, by_task, dict.fromkeys(TASKS, n))
        tasks = list(pop.tasks[picked])
        tally(
            found, truth, single_methods(overall(pop.scores[name][picked], tasks), Design.stratified(tasks, by="task"))
        )
    return summary(found, sims)


def paired(pop: Population, a: str, b: str, sizes, sims: int, rng, shift: float = 0.0):
    """Per method (coverage, width) of the true difference, and the package's share distinguishable in its
    direction (the achieved power where a true difference is planted)."""
    rows = pop.rows(a, b)
    truth = pop.truth(a, rows, shift) - pop.truth(b, rows)
    by_task, found, detected = pop.by_task(rows), {}, 0
    sizes = dict.fromkeys(TASKS, sizes) if isinstance(sizes, int) else sizes
    for _ in range(sims):
        picked = draw(rng, by_task, sizes)
        tasks, design = list(pop.tasks[picked]), Design.stratified(list(pop.tasks[picked]), by="task")
        fa, fb = overall(pop.scores[a][picked] + shift, tasks), overall(pop.scores[b][picked], tasks)
        methods = paired_methods(fa, fb, design) if not shift else {"package": package_bounds(fa, fb, design)}
        tally(found, truth, methods)
        low, high = methods.get("package") or (0.0, 0.0)
        detected += (low > 0 or high < 0) and np.sign(low + high) == np.sign(truth)
    return summary(found, sims), detected / sims


def package_bounds(a, b, design: Design) -> tuple[float, float] | None:
    found = paired_difference(a, b, design, scale=SCALE)
    return None if found is None else (found.low, found.high)


def one_sparse(pop: Population, name: str, n: int, sims: int, rng) -> dict[str, tuple[float, float]]:
    """The package's interval where one task holds one prompt (t on the borrowed variance, `sparse.pooled_interval`)
    and, on the same draw, the same spread on the scale's logit."""
    rows = pop.rows(name)
    truth, by_task, found = pop.truth(name, rows), pop.by_task(rows), {}
    for k in range(sims):
        picked = draw(rng, by_task, dict.fromkeys(TASKS, n) | {TASKS[k % len(TASKS)]: 1})
        tasks, design = list(pop.tasks[picked]), Design.stratified(list(pop.tasks[picked]), by="task")
        values = pop.scores[name][picked]
        package, _ = pooled_interval(lambda v, tasks=tasks: overall(v, tasks), values, design=design, bounds=SCALE)
        methods = {"package": None if package is None else (package.low, package.high)}
        if package is not None:
            logit = scale_interval(package.point, package.se, package.df, package.n, 0.95, SCALE)
            methods["logit"] = (logit.low, logit.high)
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


def load(seed: int) -> Population:
    source = released_source(NAME, None)
    if source is None:
        sys.exit("error: no HelloBench data folder ($LONGFORM_EVAL_SOURCE/hellobench)")
    prompts = main_prompts(source)
    task_of = task_of_subcategory()
    tasks = np.array([task_of[sub] for sub, _ in prompts.values()], dtype=object)
    released = {m.name: m.row_scores for m in (score_model(f, prompts) for f in model_folders(source / JUDGEMENTS))}
    return Population(released | hard_populations(tasks, released["gpt4o_0806"], seed), tasks)


def cell_text(found: dict[str, tuple[float, float]], methods: tuple[str, ...]) -> str:
    return " / ".join(f"{found[m][0]:.1%} ({found[m][1]:.1f})" for m in methods if m in found)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--simulations", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", choices=("released", "hard"), help="only these populations")
    args = parser.parse_args()
    started, rng, sims = time.perf_counter(), np.random.default_rng(args.seed), args.simulations
    pop = load(args.seed)
    released = ["gpt4o_0806", "llama31_8b", "qwen2_7b"]
    hard = [a for a, _ in PAIRS]
    singles = {"released": released, "hard": hard}.get(args.only, released + hard)
    pairs = {"released": list(RELEASED_PAIRS), "hard": list(PAIRS)}.get(args.only, [*RELEASED_PAIRS, *PAIRS])
    print(
        f"{time.strftime('%Y-%m-%d %H:%M %Z')}, {platform.machine()}, {os.cpu_count()} CPUs, Python "
        f"{platform.python_version()}; {sims} simulated benchmarks per cell, seed {args.seed}, draws i.i.d.\n"
        f"cells: coverage (mean width on -300..100); one model: {' / '.join(SINGLE_METHODS)}; one task with one "
        "prompt: package / logit; paired: package / t / bootstrap-t"
    )
    print("\n| cell | " + " | ".join(singles) + " |\n|---|" + "---|" * len(singles))
    for n in (5, 10, 30):
        cells = [cell_text(one_model(pop, m, n, sims, rng), SINGLE_METHODS) for m in singles]
        print(f"| one model, {n} per task | " + " | ".join(cells) + " |", flush=True)
    for n in (5, 30):
        cells = [cell_text(one_sparse(pop, m, n, sims, rng), ("package", "logit")) for m in singles]
        print(f"| one task with one prompt, others {n} | " + " | ".join(cells) + " |", flush=True)
    print("\n| cell | " + " | ".join(f"{a} - {b}" for a, b in pairs) + " |\n|---|" + "---|" * len(pairs))
    for n in (5, 10, 30):
        cells = [cell_text(paired(pop, a, b, n, sims, rng)[0], PAIRED_METHODS) for a, b in pairs]
        print(f"| paired difference, {n} per task | " + " | ".join(cells) + " |", flush=True)
    if args.only != "hard":
        names = " | ".join(f"{a} - {b}" for a, b in RELEASED_PAIRS)
        print(f"\n| power plan (at least 80%): achieved (stated, prompts) | {names} |")
        print("|---|" + "---|" * len(RELEASED_PAIRS))
        for n in (5, 10, 30):
            cells = ["<br>".join(power_cells(pop, a, b, n, sims, rng)) for a, b in RELEASED_PAIRS]
            print(f"| about {n} per task | " + " | ".join(cells) + " |", flush=True)
    print(f"\ntime: {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
