"""Coverage of the 95% intervals by simulation (issue 31): how often a figure's interval holds the true value.

The population: HelloBench's released GPT-4o verdicts (main experiment), each model's scored rows as a run's
scores.json holds them (`hellobench_table2_intervals.score_model`); the true value is the figure on the whole
population. A simulated benchmark draws n prompts per task (with replacement, `--draw iid`: i.i.d. prompts from the
population, the superpopulation an interval speaks of; `--draw without`: without replacement, where n is a large
part of a task, e.g. 30 of text_completion's 77, the finite-population shrink makes any interval that ignores it
conservative), computes the figure and its interval as a run does, and counts whether it holds the truth. Cells:

- one model: `overall`, n = 5 / 10 / 30 per task (`intervals`);
- paired difference of two models on the same drawn prompts (`paired_difference`), n = 5 / 10 / 30;
- one task with one prompt, the others 5 / 30 (`sparse.pooled_interval`, as a run computes it); the task with
  one prompt turns with the simulation (each task a fifth of them);
- power plans: the reference is the pair's whole population (paired SE on all shared prompts); the difference to
  detect is set so the plan (`prompts_needed`, t test) asks about 5 / 10 / 30 prompts per task; model a's row
  scores are shifted so the true difference is that; the cell gives how often the planned run's paired interval
  excludes 0 in the right direction: the achieved power (stated 80%), not a coverage.

    python bench/interval_coverage.py [--simulations 1000] [--seed 0] [--draw iid|without]
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from itertools import combinations
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from hellobench_table2_intervals import Model, model_folders, score_model  # noqa: E402

from longform_eval.dataset_builder.hellobench import NAME, TASKS  # noqa: E402
from longform_eval.inference.report.sections.context import JUDGEMENTS, main_prompts, released_source  # noqa: E402
from longform_eval.metric.helloeval.uncertainty import helloeval_figures  # noqa: E402
from longform_eval.metric.helloeval.weights import task_of_subcategory  # noqa: E402
from longform_eval.metric.uncertainty import Design, intervals, paired_difference  # noqa: E402
from longform_eval.metric.uncertainty.comparison import difference_figure  # noqa: E402
from longform_eval.metric.uncertainty.power import PowerPlan  # noqa: E402
from longform_eval.metric.uncertainty.power_simulation import PairedReference, allocate, simulated_plan  # noqa: E402
from longform_eval.metric.uncertainty.sparse import pooled_interval  # noqa: E402
from longform_eval.metric.uncertainty.variance import linearized, rests_on  # noqa: E402

SCALE = (-300.0, 100.0)


def overall(scores: np.ndarray, tasks: list[str]):
    return helloeval_figures(scores, tasks)["overall"]


def draw(rng: np.random.Generator, by_task: dict[str, np.ndarray], sizes: dict[str, int], iid: bool) -> np.ndarray:
    """Row indices: sizes[task] prompts of each task."""
    return np.concatenate([rng.choice(by_task[t], sizes[t], replace=iid) for t in TASKS if sizes[t]])


def rows_by_task(rows: np.ndarray, tasks: np.ndarray) -> dict[str, np.ndarray]:
    return {t: rows[tasks[rows] == t] for t in TASKS}


class Population:
    def __init__(self, models: list[Model], tasks: np.ndarray) -> None:
        self.models, self.tasks = {m.name: m for m in models}, tasks

    def scored(self, *names: str) -> np.ndarray:
        return np.flatnonzero(np.logical_and.reduce([np.isfinite(self.models[n].row_scores) for n in names]))

    def truth(self, name: str, rows: np.ndarray) -> float:
        return overall(self.models[name].row_scores[rows], list(self.tasks[rows])).point()


def one_model(pop: Population, name: str, n: int, sims: int, rng, iid: bool) -> float:
    rows = pop.scored(name)
    truth, by_task = pop.truth(name, rows), rows_by_task(rows, pop.tasks)
    hits = 0
    for _ in range(sims):
        picked = draw(rng, by_task, dict.fromkeys(TASKS, n), iid)
        tasks = list(pop.tasks[picked])
        found = intervals(
            {"o": overall(pop.models[name].row_scores[picked], tasks)},
            Design.stratified(tasks, by="task"),
            bounds={"o": SCALE},
        )["o"]
        hits += found is not None and found.contains(truth)
    return hits / sims


def paired(
    pop: Population, a: str, b: str, n: int, sims: int, rng, iid: bool, shift: float = 0.0
) -> tuple[float, float]:
    """(coverage of the true difference, share distinguishable in its direction)."""
    rows = pop.scored(a, b)
    scores_a = pop.models[a].row_scores + shift
    truth = pop.truth(a, rows) + 4 * shift - pop.truth(b, rows)
    by_task = rows_by_task(rows, pop.tasks)
    hits = detected = 0
    for _ in range(sims):
        picked = draw(rng, by_task, dict.fromkeys(TASKS, n) if isinstance(n, int) else n, iid)
        tasks = list(pop.tasks[picked])
        found = paired_difference(
            overall(scores_a[picked], tasks),
            overall(pop.models[b].row_scores[picked], tasks),
            Design.stratified(tasks, by="task"),
        )
        hits += found is not None and found.low <= truth <= found.high
        detected += found is not None and found.distinguishable and np.sign(found.difference) == np.sign(truth)
    return hits / sims, detected / sims


def one_sparse(pop: Population, name: str, n: int, sims: int, rng, iid: bool) -> float:
    rows = pop.scored(name)
    truth, by_task = pop.truth(name, rows), rows_by_task(rows, pop.tasks)
    hits = 0
    for k in range(sims):
        sizes = dict.fromkeys(TASKS, n) | {TASKS[k % len(TASKS)]: 1}
        picked = draw(rng, by_task, sizes, iid)
        tasks = list(pop.tasks[picked])
        found, _ = pooled_interval(
            lambda v, tasks=tasks: overall(v, tasks),
            pop.models[name].row_scores[picked],
            design=Design.stratified(tasks, by="task"),
            bounds=SCALE,
        )
        hits += found is not None and found.contains(truth)
    return hits / sims


def power_cell(pop: Population, a: str, b: str, per_task: int, sims: int, rng, iid: bool) -> tuple[float, PowerPlan]:
    """Achieved power of the plan that asks about `per_task` prompts per task, and the plan."""
    rows = pop.scored(a, b)
    tasks = list(pop.tasks[rows])
    design = Design.stratified(tasks, by="task")
    pair = figure_pair(pop, a, b, rows, tasks)
    figure, reference = difference_figure(*pair), paired_difference(*pair, design)
    total = per_task * len(TASKS)
    detect = 2.8 * reference.se * np.sqrt(len(rows) / total)  # the difference whose normal plan is `total` prompts
    plan = simulated_plan(PairedReference.of(linearized(figure), rests_on(figure), design), detect)
    names = list(design.stratum_names)
    sizes = dict(zip(names, allocate(plan.prompts, [tasks.count(t) for t in names]), strict=True))
    shift = (detect - reference.difference) / 4
    _, achieved = paired(pop, a, b, sizes, sims, rng, iid, shift)
    return achieved, plan


def figure_pair(pop: Population, a: str, b: str, rows: np.ndarray, tasks: list[str]):
    return overall(pop.models[a].row_scores[rows], tasks), overall(pop.models[b].row_scores[rows], tasks)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--simulations", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--draw", choices=("iid", "without"), default="iid")
    args = parser.parse_args()
    started = time.perf_counter()
    source = released_source(NAME, None)
    if source is None:
        sys.exit("error: no HelloBench data folder ($LONGFORM_EVAL_SOURCE/hellobench)")
    prompts = main_prompts(source)
    task_of = task_of_subcategory()
    tasks = np.array([task_of[sub] for sub, _ in prompts.values()])
    models = [score_model(folder, prompts) for folder in model_folders(source / JUDGEMENTS)]
    pop, rng, iid, sims = (
        Population(models, tasks),
        np.random.default_rng(args.seed),
        args.draw == "iid",
        args.simulations,
    )
    names = [m.name for m in models]
    print(
        f"{platform.machine()}, {__import__('os').cpu_count()} CPUs; {len(models)} models ({', '.join(names)}); "
        f"{sims} simulated benchmarks per cell, seed {args.seed}, draws {'i.i.d.' if iid else 'without replacement'}"
    )
    print("\n| cell | " + " | ".join(names) + " |\n|---|" + "---|" * len(names))
    for n in (5, 10, 30):
        print(
            f"| one model, {n} per task | "
            + " | ".join(f"{one_model(pop, m, n, sims, rng, iid):.1%}" for m in names)
            + " |"
        )
    for n in (5, 30):
        print(
            f"| one task with one prompt, others {n} | "
            + " | ".join(f"{one_sparse(pop, m, n, sims, rng, iid):.1%}" for m in names)
            + " |"
        )
    pairs = list(combinations(names, 2))
    print("\n| cell | " + " | ".join(f"{a} - {b}" for a, b in pairs) + " |\n|---|" + "---|" * len(pairs))
    for n in (5, 10, 30):
        print(
            f"| paired difference, {n} per task | "
            + " | ".join(f"{paired(pop, a, b, n, sims, rng, iid)[0]:.1%}" for a, b in pairs)
            + " |"
        )
    for n in (5, 10, 30):
        cells = [power_cell(pop, a, b, n, sims, rng, iid) for a, b in pairs]
        print(
            f"| power plan (at least 80%), about {n} per task | "
            + " | ".join(f"{power:.1%} (plan {plan.expected_power:.1%}, {plan.prompts})" for power, plan in cells)
            + " |"
        )
    print(f"\ntime: {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
