"""Intervals on HelloBench Table 2 (issue 21): how far each model's overall score could move with other prompts,
and which pairs of models the released GPT-4o verdicts can tell apart.

Each model's released verdicts (main experiment) are scored as the package scores a run: the first verdict per
known prompt id (duplicates and unknown ids skipped), parsed by `parse_checklist_verdict`, each row scored with the
released checklist weights (`scored`, as scores.json's rows; a verdict that does not fit the weights is unscored).
The overall score on all main prompts is checked against the package's own (`published_scores`). Then, on the
prompts every model scored: each model's 95% stratified bootstrap interval (prompts resampled within their task,
as the overall is a mean of task means), every pair's paired difference with its interval and p-value, and each
model's rank range, all from `longform_eval.metric.uncertainty` on the same seeded resamples. The table also gives
each model's interval on all its scored prompts (what a run's scores.json holds); the pairs that are not
distinguishable are listed (`--all-pairs`: every pair).

All 23 models are in the upstream repository (plain .jsonl); the shared data folder holds 3 of them (.jsonl.gz):

    git -C /work/.mirror/Quehry+HelloBench/repo archive HEAD results/judgements/main_exp | tar -x -C /tmp/hb23
    python bench/hellobench_table2_intervals.py --judgements /tmp/hb23/results/judgements/main_exp
    python bench/hellobench_table2_intervals.py
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import sys
import time
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np

from longform_eval.dataset_builder.hellobench import NAME, TASKS
from longform_eval.inference.report.sections.context import JUDGEMENTS, main_prompts, published_scores, released_source
from longform_eval.metric.helloeval.parser import parse_checklist_verdict
from longform_eval.metric.helloeval.scoring import JudgedRow, first_verdict_per_known_id, scored
from longform_eval.metric.helloeval.uncertainty import helloeval_figures
from longform_eval.metric.helloeval.weights import flat_weights, task_of_subcategory
from longform_eval.metric.uncertainty import (
    DEFAULT_ROUNDS,
    DEFAULT_SEED,
    Design,
    Difference,
    Figure,
    Interval,
    RankRange,
    intervals,
    paired_difference,
    rank_ranges,
    shared_units,
)
from longform_eval.metric.uncertainty.resampling import check_rounds_and_seed

# The package's overall on all 647 prompts for the models in the shared data (metric/helloeval/README.md, tests).
PACKAGE_OVERALL = {"gpt4o_0806": 48.55, "llama31_8b": 15.01, "qwen2_7b": 13.68}
# Pairs the issue names, with its figures (23 models, 613 prompts).
ISSUE_PAIRS = {
    ("llama31_8b", "qwen2_7b"): "llama31_8b 15.01 vs qwen2_7b 13.68, difference 1.3, paired 95% interval about "
    "-4.9 .. 7.8, a tie",
    ("gemma2_27b", "internlm25_20b"): "gap 5.7, not distinguishable",
}
ISSUE = "quoted"
ISSUE_WIDTHS = {"gpt4o_0806": 5.8, "llama31_8b": 11.7}


class InputError(Exception):
    """A problem with the given folders: one line naming the input."""


@dataclass(frozen=True)
class Model:
    """One model's released verdicts, scored: its row scores over the main prompts (NaN: no verdict or unscored),
    which prompts have a verdict, and the package's overall on all main prompts."""

    name: str
    row_scores: np.ndarray
    judged: np.ndarray
    package_overall: float | None


# ----- reading and scoring ------------------------------------------------------------------------------------
def read_records(path: Path) -> list[dict[str, Any]]:
    opener = gzip.open if path.suffix == ".gz" else open
    records = []
    with opener(path, "rt", encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if line.strip():
                try:
                    records.append(json.loads(line))
                except ValueError as error:
                    raise InputError(f"{path}: line {number} is not JSON ({error})") from None
    return records


def model_verdicts(folder: Path) -> tuple[dict[str, Any], ...]:
    """The model's verdict records, task by task (HelloBench's task order, as `released_verdicts`), in file order."""
    records = []
    for task in TASKS:
        found = [folder / f"{task}_results{suffix}" for suffix in (".jsonl", ".jsonl.gz")]
        path = next((p for p in found if p.is_file()), None)
        if path is None:
            raise InputError(f"{folder}: no {found[0].name} or {found[1].name}")
        records += read_records(path)
    return tuple(records)


def score_model(folder: Path, prompts: dict[str, tuple[str, int]]) -> Model:
    """Row scores in the order of `prompts`, exactly as a run's scores.json rows hold them."""
    verdicts = model_verdicts(folder)
    weights = flat_weights()
    position = {row_id: i for i, row_id in enumerate(prompts)}
    row_scores = np.full(len(prompts), np.nan)
    judged = np.zeros(len(prompts), dtype=bool)
    for record in first_verdict_per_known_id(verdicts, set(prompts)):
        subcategory, size = prompts[record["id"]]
        verdict = parse_checklist_verdict(record["checklist_wise_evaluation"], size)
        value = scored(JudgedRow(record["id"], subcategory, verdict), weights)
        judged[position[record["id"]]] = True
        row_scores[position[record["id"]]] = np.nan if value is None else value
    package = published_scores(verdicts, prompts, set(prompts))["overall"]
    if package is None:
        raise InputError(f"{folder}: no verdict there scores a HelloBench main prompt")
    return Model(folder.name, row_scores, judged, package)


def model_folders(judgements: Path) -> list[Path]:
    folders = sorted(p for p in judgements.iterdir() if p.is_dir()) if judgements.is_dir() else []
    if not folders:
        raise InputError(f"--judgements {judgements}: no <model>/ folders with <task>_results.jsonl[.gz] files")
    return folders


# ----- figures ------------------------------------------------------------------------------------------------
def overall_of(row_scores: np.ndarray, tasks: list[str]) -> Figure:
    return helloeval_figures(row_scores, tasks)["overall"]


def fmt(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def span(low: float, high: float) -> str:
    return f"{low:.2f} .. {high:.2f}"


def rank_text(best: int, worst: int) -> str:
    return str(best) if best == worst else f"{best}-{worst}"


def difference_line(a: str, b: str, found: Difference | None) -> str:
    if found is None:
        return f"{a} vs {b}: undefined"
    verdict = "distinguishable" if found.distinguishable else "a tie"
    return (
        f"{a} vs {b}: difference {found.difference:.2f}, paired 95% interval {span(found.low, found.high)}, "
        f"p = {found.p_value:.3f}, n = {found.n_paired}: {verdict}"
    )


# ----- the measurement ----------------------------------------------------------------------------------------
def check_points(models: list[Model], tasks: list[str]) -> None:
    """Our point estimate on all prompts against the package's overall, and the package's against its stored ones."""
    gaps = [abs(overall_of(m.row_scores, tasks).point() - m.package_overall) for m in models]
    print(
        f"point estimate on all {len(tasks)} prompts (mean of task means of the row scores) vs the package's overall "
        f"(`published_scores`): max |difference| {max(gaps):.1e} over {len(models)} models"
    )
    known = [f"{m.name} {m.package_overall:.2f}" for m in models if m.name in PACKAGE_OVERALL]
    if known:
        stored = ", ".join(f"{name} {value}" for name, value in PACKAGE_OVERALL.items())
        print(f"package's overall on all {len(tasks)} prompts: {', '.join(known)} [its README and tests: {stored}]")


def measure(models: list[Model], ids: list[str], tasks: list[str], rounds: int, seed: int, every_pair: bool) -> None:
    started = time.perf_counter()
    shared = np.flatnonzero(np.logical_and.reduce([np.isfinite(m.row_scores) for m in models]))
    judged_by_all = np.logical_and.reduce([m.judged for m in models])
    if not len(shared):
        raise InputError("no prompt is scored by every model: nothing to compare")
    shared_tasks = [tasks[i] for i in shared]
    print(
        f"prompts every model scored: {len(shared)} of {len(tasks)} ({int(judged_by_all.sum())} have a verdict "
        f"from every model) [{ISSUE}: 613]; per task: {', '.join(f'{t} {shared_tasks.count(t)}' for t in TASKS)}"
    )
    whole = Design.stratified(tasks, unit="prompt", by="task")
    design = Design.stratified(shared_tasks, unit="prompt", by="task")
    on_all = intervals({m.name: overall_of(m.row_scores, tasks) for m in models}, whole, rounds, seed)
    figures = {m.name: overall_of(m.row_scores[shared], shared_tasks) for m in models}
    on_shared = intervals(figures, design, rounds, seed)
    ranks = rank_ranges(figures, design, rounds, seed)
    intervals_done = time.perf_counter()

    order = sorted(figures, key=lambda name: -on_shared[name].point)
    print_table(models, order, on_all, on_shared, ranks, len(tasks), len(shared))
    widths = [on_shared[name].width for name in order]
    issue_widths = ", ".join(f"{name} {width}" for name, width in ISSUE_WIDTHS.items())
    print(
        f"median width of the 95% interval on the {len(shared)} shared prompts: {statistics.median(widths):.1f} "
        f"points (min {min(widths):.1f}, max {max(widths):.1f}) on a -300..100 scale [{ISSUE}: 9.0; {issue_widths}]"
    )
    pairs = {(a, b): paired_difference(figures[a], figures[b], design, rounds, seed) for a, b in combinations(order, 2)}
    pairs_done = time.perf_counter()
    print_pairs(pairs, len(shared), every_pair)
    highlight(models, ids, tasks, figures, design, rounds, seed)
    print(
        f"time: {len(models)} intervals on all prompts, {len(models)} on the shared ones and the rank ranges "
        f"{intervals_done - started:.2f} s; {len(pairs)} paired differences {pairs_done - intervals_done:.2f} s "
        f"({rounds} resamples, seed {seed})"
    )


def print_table(
    models: list[Model],
    order: list[str],
    on_all: dict[str, Interval],
    on_shared: dict[str, Interval],
    ranks: dict[str, RankRange],
    n_all: int,
    n_shared: int,
) -> None:
    scored_rows = {m.name: int(np.isfinite(m.row_scores).sum()) for m in models}
    print(
        f"{'model':<18} {'scored':>6} {f'overall ({n_all})':>13} {'95% interval':>16} "
        f"{f'overall ({n_shared})':>13} {'95% interval':>16} {'width':>5} {'rank':>4} {'range':>5}"
    )
    for name in order:
        whole, shared, rank = on_all[name], on_shared[name], ranks[name]
        print(
            f"{name:<18} {scored_rows[name]:>6} {fmt(whole.point):>13} {span(whole.low, whole.high):>16} "
            f"{fmt(shared.point):>13} {span(shared.low, shared.high):>16} {shared.width:>5.1f} {rank.rank:>4} "
            f"{rank_text(rank.best, rank.worst):>5}"
        )


def gap(found: Difference | None) -> float:
    return -1.0 if found is None else abs(found.difference)


def print_pairs(pairs: dict[tuple[str, str], Difference | None], n_shared: int, every: bool) -> None:
    ties = {pair: found for pair, found in pairs.items() if found is None or not found.distinguishable}
    print(
        f"pairs distinguishable at 95% (paired bootstrap on the {n_shared} shared prompts): "
        f"{len(pairs) - len(ties)} of {len(pairs)}, not distinguishable {len(ties)} [{ISSUE}: 201 of 253, 52 not]"
    )
    if ties:
        (a, b), widest = max(ties.items(), key=lambda item: gap(item[1]))
        print(
            f"largest gap among the pairs that are not: {gap(widest):.1f} points ({a} vs {b}) "
            f"[{ISSUE}: 5.7, gemma2_27b vs internlm25_20b]"
        )
    listed = pairs if every else ties
    what = "all pairs" if every else "the pairs that are not distinguishable"
    print(f"{what} (the higher score first), largest gap first:")
    for (a, b), found in sorted(listed.items(), key=lambda item: -gap(item[1])):
        print(f"  {difference_line(a, b, found)}")


def highlight(
    models: list[Model],
    ids: list[str],
    tasks: list[str],
    figures: dict[str, Figure],
    design: Design,
    rounds: int,
    seed: int,
) -> None:
    """The pairs the issue names: on the prompts every model scored, and on the prompts both scored (as
    `longform-eval report` pairs two runs)."""
    by_name = {m.name: m for m in models}
    for (a, b), issue in ISSUE_PAIRS.items():
        if a in by_name and b in by_name:
            on_shared = paired_difference(figures[a], figures[b], design, rounds, seed)
            print(f"on the shared prompts: {difference_line(a, b, on_shared)} [{ISSUE}: {issue}]")
            n_both, on_both = paired_on_both(by_name[a], by_name[b], ids, tasks, rounds, seed)
            print(f"on the {n_both} prompts both scored: {difference_line(a, b, on_both)}")


def paired_on_both(
    a: Model, b: Model, ids: list[str], tasks: list[str], rounds: int, seed: int
) -> tuple[int, Difference | None]:
    scored_ids = [[i for i, s in zip(ids, m.row_scores, strict=True) if np.isfinite(s)] for m in (a, b)]
    both, index_a, _ = shared_units(*scored_ids)
    rows = np.flatnonzero(np.isfinite(a.row_scores))[index_a]
    both_tasks = [tasks[i] for i in rows]
    design = Design.stratified(both_tasks, unit="prompt", by="task")
    figures = [overall_of(m.row_scores[rows], both_tasks) for m in (a, b)]
    return len(both), paired_difference(*figures, design, rounds, seed)


def run(judgements: Path, source: Path, rounds: int, seed: int, every_pair: bool) -> None:
    started = time.perf_counter()
    prompts = main_prompts(source)
    task_of = task_of_subcategory()
    tasks = [task_of[subcategory] for subcategory, _ in prompts.values()]
    models = [score_model(folder, prompts) for folder in model_folders(judgements)]
    print(f"{len(models)} models from {judgements}; {len(prompts)} main prompts from {source}")
    print(
        "[in brackets: the figures quoted when this benchmark was asked for, measured on 23 models and the 613 "
        "prompts they share]"
    )
    print(f"read and scored in {time.perf_counter() - started:.2f} s")
    check_points(models, tasks)
    measure(models, list(prompts), tasks, rounds, seed, every_pair)
    print(f"total: {time.perf_counter() - started:.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", help="the HelloBench data folder (default: found as the runner finds it)")
    parser.add_argument(
        "--judgements",
        type=Path,
        help="a folder of <model>/ folders of <task>_results.jsonl[.gz] (default: <source>/judgements/main_exp)",
    )
    parser.add_argument("--rounds", type=int, default=DEFAULT_ROUNDS, help="bootstrap resamples")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="seed of the resamples")
    parser.add_argument("--all-pairs", action="store_true", help="list every pair, not only those that are ties")
    args = parser.parse_args()
    source = released_source(NAME, args.source)
    try:
        check_options(args.rounds, args.seed)
        if source is None:
            raise InputError(f"--source {args.source or '(default)'}: no HelloBench data folder")
        run(args.judgements or source / JUDGEMENTS, source, args.rounds, args.seed, args.all_pairs)
    except (InputError, ValueError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(2)


def check_options(rounds: int, seed: int) -> None:
    try:
        check_rounds_and_seed(rounds, seed)
    except ValueError as error:
        raise InputError(f"--{error}") from None


if __name__ == "__main__":
    main()
