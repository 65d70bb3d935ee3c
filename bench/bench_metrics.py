"""Scorer throughput (issue targets: each under the stated time on a 2-core CPU).

- HelloEval: score 100,000 judged rows (parsed checklist scores) -> target < 1 s.
- LongGenBench: score 100,000 items' checks -> target < 1 s (measured for 100,000 checks and 100,000 items).
- Bradley-Terry: 100 bootstrap rounds over 10,000 battles -> target < 5 s.
- Intervals (issue 21): HelloEval overall + 5 task intervals from 10,000 judged rows, 2,000 stratified resamples
  -> target < 2 s; a paired difference on the same rows, and rank ranges of 23 models on 613 prompts (the
  issue's HelloBench set) with the same target.

Run: python bench/bench_metrics.py
"""

from __future__ import annotations

import json
import platform
import random
import time

import numpy as np

from longform_eval.metric.helloeval.parser import parse_checklist_verdict
from longform_eval.metric.helloeval.scoring import JudgedRow, score_rows
from longform_eval.metric.helloeval.weights import TASKS, flat_weights, task_of_subcategory
from longform_eval.metric.longgenbench.scoring import ItemResult, score_items
from longform_eval.metric.pairwise import Battle, Outcome, bradley_terry, elo_ratings
from longform_eval.metric.uncertainty import (
    Design,
    affine,
    intervals,
    mean,
    paired_difference,
    rank_ranges,
    stratified_mean,
)

LEVELS = (0.0, 0.25, 0.5, 0.75, 1.0)


def timed(label: str, target: float, function) -> float:
    start = time.perf_counter()
    function()
    seconds = time.perf_counter() - start
    print(f"{label:<58} {seconds:8.3f} s   target < {target:g} s   {'OK' if seconds < target else 'MISSED'}")
    return seconds


def helloeval_rows(n: int, rng: random.Random) -> list[JudgedRow]:
    weights = flat_weights()
    subs = list(weights)
    rows = []
    for i in range(n):
        sub = rng.choice(subs)
        rows.append(JudgedRow(str(i), sub, [rng.choice(LEVELS) for _ in weights[sub]], rng.randint(100, 5000)))
    return rows


def longgenbench_items(n_items: int, checks_per_item: int, rng: random.Random) -> list[ItemResult]:
    scenarios = ("diary", "menu", "skyscraper", "urban_planning")
    kinds = ("single", "range", "periodic")
    return [
        ItemResult(
            item_id=str(i),
            scenario=scenarios[i % 4],
            num_subtasks=100,
            completion_rate=rng.uniform(50, 100),
            word_count=rng.randint(1000, 20000),
            n_blocks=rng.randint(10, 100),
            kinds=tuple(rng.choice(kinds) for _ in range(checks_per_item)),
            subtasks=tuple(rng.randint(1, 100) for _ in range(checks_per_item)),
            outcomes=tuple(rng.randint(0, 2) for _ in range(checks_per_item)),
        )
        for i in range(n_items)
    ]


def battles(n: int, models: int, rng: random.Random) -> list[Battle]:
    names = [f"model-{i}" for i in range(models)]
    outcomes = list(Outcome)
    return [Battle(*rng.sample(names, 2), rng.choice(outcomes)) for _ in range(n)]


def hellobench_figures(rows: list[JudgedRow]) -> tuple[dict, Design]:
    """Row scores of judged rows, then the overall and the task figures, stratified by task (as a runner would)."""
    weights, task_of = flat_weights(), task_of_subcategory()
    scores = np.array([float(np.dot(row.verdict, weights[row.subcategory])) for row in rows])
    tasks = [task_of[row.subcategory] for row in rows]
    labels = np.array(tasks)
    figures = {"overall": affine(stratified_mean(scores, tasks), 4, -300)}
    for task in TASKS:
        figures[task] = affine(mean(scores, scored=labels == task), 4, -300)
    return figures, Design.stratified(tasks, by="task")


def hellobench_intervals(rows: list[JudgedRow]) -> dict:
    figures, design = hellobench_figures(rows)
    return intervals(figures, design, rounds=2000, seed=0)


def paired_overall(rows_a: list[JudgedRow], rows_b: list[JudgedRow]):
    (figures_a, design), (figures_b, _) = hellobench_figures(rows_a), hellobench_figures(rows_b)
    return paired_difference(figures_a["overall"], figures_b["overall"], design, rounds=2000, seed=0)


def models_on_shared_prompts(models: int, prompts: int, rng: np.random.Generator) -> tuple[dict, Design]:
    tasks = [TASKS[i % len(TASKS)] for i in range(prompts)]
    difficulty = rng.normal(70, 15, prompts)
    figures = {
        f"model-{m}": affine(stratified_mean(difficulty + rng.normal(m / 3, 10, prompts), tasks), 4, -300)
        for m in range(models)
    }
    return figures, Design.stratified(tasks, by="task")


def main() -> None:
    rng = random.Random(0)
    print(f"machine: {platform.processor() or platform.machine()}, python {platform.python_version()}")
    rows = helloeval_rows(100_000, rng)
    weights, task_of = flat_weights(), task_of_subcategory()
    timed("HelloEval: score 100,000 judged rows", 1.0, lambda: score_rows(rows, weights, task_of))
    completions = [
        json.dumps([{"checklist_id": i, "reason": "r", "evaluation_score": s} for i, s in enumerate(r.verdict)])
        for r in rows
    ]
    sizes = [len(r.verdict) for r in rows]
    timed(
        "HelloEval: parse 100,000 JSON judge completions (no target)",
        float("inf"),
        lambda: [parse_checklist_verdict(c, n) for c, n in zip(completions, sizes, strict=True)],
    )
    few_checks = longgenbench_items(6_250, 16, rng)  # 100,000 checks
    timed("LongGenBench: score 100,000 checks (6,250 items x 16)", 1.0, lambda: score_items(few_checks))
    many_items = longgenbench_items(100_000, 16, rng)  # 1.6 M checks
    timed("LongGenBench: score 100,000 items (1.6 M checks)", 1.0, lambda: score_items(many_items))
    fights = battles(10_000, 10, rng)
    timed(
        "Bradley-Terry: 100 bootstrap rounds, 10,000 battles, 10 models",
        5.0,
        lambda: bradley_terry(fights, bootstrap=100, seed=0),
    )
    timed("Elo: 20 shuffles, 10,000 battles", 5.0, lambda: elo_ratings(fights))
    interval_rows = rows[:10_000]
    found: dict = {}
    timed(
        "Intervals: HelloEval overall + 5 tasks, 10,000 rows x 2,000",
        2.0,
        lambda: found.update(hellobench_intervals(interval_rows)),
    )
    overall = found["overall"]
    print(f"    overall {overall.point:.2f}, 95% [{overall.low:.2f}, {overall.high:.2f}], se {overall.se:.2f}")
    other_rows = [JudgedRow(r.row_id, r.subcategory, [rng.choice(LEVELS) for _ in r.verdict]) for r in interval_rows]
    timed(
        "Paired difference: 10,000 shared rows, 2,000 resamples",
        2.0,
        lambda: paired_overall(interval_rows, other_rows),
    )
    ranked, design = models_on_shared_prompts(23, 613, np.random.default_rng(0))
    timed("Rank ranges: 23 models x 613 prompts, 2,000 resamples", 2.0, lambda: rank_ranges(ranked, design))


if __name__ == "__main__":
    main()
