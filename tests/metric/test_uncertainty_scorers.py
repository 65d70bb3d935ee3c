"""The uncertainty figures against the scorers: the released HelloBench verdicts, LongGenBench and LongBench-Write."""

from __future__ import annotations

import random

import numpy as np
import pytest

from longform_eval.metric import Unscored
from longform_eval.metric.helloeval import parse_checklist_verdict
from longform_eval.metric.helloeval.scoring import JudgedRow, first_verdict_per_known_id, row_score, score_rows
from longform_eval.metric.helloeval.weights import TASKS, flat_weights, task_of_subcategory
from longform_eval.metric.longbench_write.scoring import Item, length_score, quality_score
from longform_eval.metric.longbench_write.scoring import score_items as score_longbench_write
from longform_eval.metric.longbench_write.settings import paper_settings
from longform_eval.metric.longgenbench.scoring import NO, UNSCORED, YES, ItemResult, score_items
from longform_eval.metric.uncertainty import (
    Design,
    affine,
    intervals,
    mean,
    paired_difference,
    product,
    rank_ranges,
    ratio,
    shared_units,
    stratified_mean,
    weighted_sum,
)

from .test_helloeval import PUBLISHED

MODELS = sorted(PUBLISHED)


@pytest.fixture(scope="module")
def released_rows(hellobench_rows, released_verdicts):
    """model -> (row ids, tasks, row scores, judged rows) from the released GPT-4o verdicts."""
    weights, task_of = flat_weights(), task_of_subcategory()
    found = {}
    for model in MODELS:
        records = first_verdict_per_known_id(released_verdicts(model), set(hellobench_rows))
        ids, tasks, scores, judged = [], [], [], []
        for record in records:
            row = hellobench_rows[record["id"]]
            verdict = parse_checklist_verdict(record["checklist_wise_evaluation"], row["num_checklist"])
            score = row_score(verdict, weights[row["category"]])
            ids.append(record["id"])
            tasks.append(task_of[row["category"]])
            scores.append(np.nan if isinstance(score, Unscored) else score)
            judged.append(JudgedRow(record["id"], row["category"], verdict))
        found[model] = (ids, tasks, np.array(scores), judged)
    return found


def hellobench_figures(tasks: list[str], scores: np.ndarray) -> dict:
    labels = np.array(tasks)
    figures = {"overall": affine(stratified_mean(scores, tasks), 4, -300)}
    for task in TASKS:
        figures[task] = affine(mean(scores, scored=(labels == task) & np.isfinite(scores)), 4, -300)
    return figures


@pytest.mark.parametrize("model", MODELS)
def test_each_interval_holds_the_published_score_and_the_point_is_the_scorers(model, released_rows):
    ids, tasks, scores, judged = released_rows[model]
    scored = score_rows(judged, flat_weights(), task_of_subcategory())
    figures = hellobench_figures(tasks, scores)
    found = intervals(figures, Design.stratified(tasks, by="task"))
    overall, per_task = PUBLISHED[model]
    assert found["overall"].point == pytest.approx(scored.overall, abs=1e-9)
    assert found["overall"].point == pytest.approx(overall, abs=0.01)
    assert found["overall"].contains(overall) and found["overall"].n == 647 == len(ids)
    for task, published in zip(TASKS, per_task, strict=True):
        assert found[task].point == pytest.approx(scored.tasks[task].score, abs=1e-9)
        assert found[task].contains(published)
        assert found[task].n == scored.tasks[task].n_scored
    # the figures for the 613-prompt set: widths 5.8 (gpt4o_0806) and 11.7 (llama31_8b)
    assert 4 < found["overall"].width < 14


def test_the_stratified_se_agrees_with_the_textbook_stratified_se(released_rows):
    _, tasks, scores, _ = released_rows["llama31_8b"]
    found = intervals(hellobench_figures(tasks, scores), Design.stratified(tasks, by="task"))["overall"]
    labels = np.array(tasks)
    by_task = [scores[labels == task] for task in TASKS]
    # overall = 4/5 * sum of task means - 300: Var = (4/5)^2 * sum of s_t^2 / n_t
    textbook = 0.8 * np.sqrt(sum(np.var(part, ddof=1) / len(part) for part in by_task))
    assert found.se == pytest.approx(textbook, rel=0.06)


def paired(released_rows, a: str, b: str):
    ids_a, tasks_a, scores_a, _ = released_rows[a]
    ids_b, _, scores_b, _ = released_rows[b]
    ids, index_a, index_b = shared_units(ids_a, ids_b)
    tasks = [tasks_a[i] for i in index_a]
    both = np.isfinite(scores_a[index_a]) & np.isfinite(scores_b[index_b])
    figure_a = affine(stratified_mean(scores_a[index_a], tasks, scored=both), 4, -300)
    figure_b = affine(stratified_mean(scores_b[index_b], tasks, scored=both), 4, -300)
    return paired_difference(figure_a, figure_b, Design.stratified(tasks, by="task"))


def test_gpt4o_is_told_apart_from_qwen2_but_llama31_8b_and_qwen2_7b_tie(released_rows):
    clear = paired(released_rows, "gpt4o_0806", "qwen2_7b")
    assert clear.distinguishable and clear.low > 20 and clear.p_value < 0.01
    assert clear.n_paired == 647
    tie = paired(released_rows, "llama31_8b", "qwen2_7b")
    assert tie.difference == pytest.approx(15.01 - 13.68, abs=0.02)
    assert not tie.distinguishable and tie.low < 0 < tie.high and tie.p_value > 0.05
    assert -8 < tie.low < -3 and 5 < tie.high < 10  # the issue: about -4.9 .. 7.8 on the 613-prompt set
    assert tie.minimum_detectable == pytest.approx(2.8016 * tie.se, rel=5e-3)  # a t test at ~600 df
    assert tie.minimum_detectable > abs(tie.difference)


def test_the_same_seed_gives_the_same_intervals_on_the_released_verdicts(released_rows):
    _, tasks, scores, _ = released_rows["llama31_8b"]
    design = Design.stratified(tasks, by="task")
    first = intervals(hellobench_figures(tasks, scores), design, seed=0)
    # The same calls on the same data in one process: bit-identical by construction (another machine's BLAS may
    # differ in the last bits, never within one process).
    assert intervals(hellobench_figures(tasks, scores), design, seed=0) == first
    assert paired(released_rows, "llama31_8b", "qwen2_7b") == paired(released_rows, "llama31_8b", "qwen2_7b")


def test_rank_ranges_of_the_three_released_models(released_rows):
    _, tasks, _, _ = released_rows["gpt4o_0806"]
    figures = {m: hellobench_figures(tasks, released_rows[m][2])["overall"] for m in MODELS}
    assert all(released_rows[m][0] == released_rows["gpt4o_0806"][0] for m in MODELS)  # the same prompts, in order
    found = rank_ranges(figures, Design.stratified(tasks, by="task"))
    assert found["gpt4o_0806"].to_dict() == {"rank": 1, "best": 1, "worst": 1}
    assert (found["llama31_8b"].rank, found["qwen2_7b"].rank) == (2, 3)
    assert (
        (found["llama31_8b"].best, found["llama31_8b"].worst)
        == (2, 3)
        == (
            found["qwen2_7b"].best,
            found["qwen2_7b"].worst,
        )
    )


def longgenbench_items(n: int, seed: int) -> list[ItemResult]:
    rng = random.Random(seed)
    items = []
    for i in range(n):
        checks = rng.randint(1, 20)
        rate = rng.random()
        outcomes = tuple(
            rng.choice([UNSCORED, 0]) if rng.random() < 0.1 else (YES if rng.random() < rate else NO)
            for _ in range(checks)
        )
        items.append(
            ItemResult(
                str(i), "diary", 100, rng.uniform(0, 100), 3000, 50, ("single",) * checks, (1,) * checks, outcomes
            )
        )
    return items


def test_longgenbench_figures_from_per_item_counts_equal_the_scorers():
    items = longgenbench_items(300, 1)
    scores = score_items(items)
    outcomes = [np.array(item.outcomes) for item in items]
    yes = np.array([np.sum(o == YES) for o in outcomes], dtype=float)
    judged = np.array([np.sum((o == YES) | (o == NO)) for o in outcomes], dtype=float)
    checks = np.array([np.sum(o != UNSCORED) for o in outcomes], dtype=float)
    cr = mean([item.completion_rate for item in items])
    stic2 = affine(ratio(yes, checks), 100)
    figures = {"cr": cr, "stic1": affine(ratio(yes, judged), 100), "stic2": stic2, "wavg": product(cr, stic2, 0.01)}
    found = intervals(figures, Design.simple(len(items), unit="item"))
    for name in figures:
        assert found[name].point == pytest.approx(getattr(scores, name), abs=1e-9)
        assert found[name].low < found[name].point < found[name].high
    assert found["cr"].n == 300


def test_longbench_write_s_from_per_item_scores_equals_the_scorers():
    rng = random.Random(2)
    dimensions = paper_settings().dimensions
    items = []
    for i in range(120):
        roll = rng.random()
        verdict = (
            Unscored("bad JSON") if roll < 0.1 else None if roll < 0.15 else {d: rng.randint(1, 5) for d in dimensions}
        )
        items.append(Item(str(i), rng.choice([300, 1000, 5000]), rng.randint(0, 8000), verdict))
    scores = score_longbench_write(items)
    s_l = mean([length_score(item.required, item.length) for item in items])
    s_q = mean([quality_score(item.verdict) if isinstance(item.verdict, dict) else np.nan for item in items])
    figures = {"S_l": s_l, "S_q": s_q, "S": weighted_sum([s_l, s_q], [0.5, 0.5])}
    found = intervals(figures, Design.simple(len(items), unit="item"))
    assert found["S_l"].point == pytest.approx(scores.s_l, abs=1e-9)
    assert found["S_q"].point == pytest.approx(scores.s_q, abs=1e-9)
    assert found["S"].point == pytest.approx(scores.s, abs=1e-9)
    assert (found["S_q"].n, found["S"].n) == (scores.n_scored, 120)
