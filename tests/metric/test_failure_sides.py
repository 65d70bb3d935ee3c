"""The two sides of an interval near one end of its scale (`unseen_failures`): where the far side reaches past its t
share for failures the sample does not show, the near side takes what that leaves of the level, so that at a failure
rate of 0 the interval keeps its level; a paired difference's sides each reach for one run's failures up to
PAIRED_RATE. Checked on HelloBench's released rows pulled to the top of the scale, as bench/interval_coverage.py
draws them."""

from __future__ import annotations

import math

import numpy as np
import pytest

from longform_eval.metric.helloeval.weights import TASKS
from longform_eval.metric.uncertainty import Design, affine, interval, paired_difference, stratified_mean
from longform_eval.metric.uncertainty.comparison import t_p_value
from longform_eval.metric.uncertainty.intervals import quantile, scale_interval
from longform_eval.metric.uncertainty.quantiles import t_cdf
from longform_eval.metric.uncertainty.sparse import pooled_interval
from longform_eval.metric.uncertainty.unseen_failures import near_quantile, unseen_reach

from .test_uncertainty_scorers import released_rows  # noqa: F401  (the fixture)

SCALE = (-300.0, 100.0)
LEVEL = 0.95


def overall(scores: np.ndarray, labels: list[str]):
    return affine(stratified_mean(scores, labels), 4, -300)


def test_the_near_side_takes_what_the_far_sides_reach_leaves_of_the_level():
    df = 30.0
    near = near_quantile(4.0, df, LEVEL)  # the far side 4 SEs out, past t(30) = 2.04
    assert t_cdf(-4.0, df) + (1 - t_cdf(near, df)) == pytest.approx(1 - LEVEL, abs=1e-12)
    assert 1.69 < near < quantile(LEVEL, df)  # between the one-sided and the two-sided quantile
    assert near_quantile(1.5, df, LEVEL) == quantile(LEVEL, df)  # inside the t side: the level's own quantile
    assert near_quantile(math.inf, None, LEVEL) == pytest.approx(1.6448536, abs=1e-6)  # the far side never misses
    assert near_quantile(10.0, df, 0.3) == 0.0  # a level below one half: never past the figure


def tight_sample(per_task: int, zeros: int = 0, seed: int = 1) -> tuple[np.ndarray, list[str]]:
    labels = [task for task in TASKS for _ in range(per_task)]
    scores = np.clip(96 + np.random.default_rng(seed).normal(0, 2, len(labels)), 0, 100)
    scores[:zeros] = 0.0
    return scores, labels


def test_a_tight_sample_near_the_top_without_failures_reaches_down_and_pays_with_its_upper_side():
    scores, labels = tight_sample(10)
    design = Design.stratified(labels, by="task")
    found = interval(overall(scores, labels), design, bounds=SCALE)
    plain = scale_interval(found.point, found.se, found.df, found.n, LEVEL, SCALE)
    reach = unseen_reach([(found.point - SCALE[0], 0)], found.n, found.se, LEVEL)
    assert found.low == pytest.approx(found.point - reach) and found.low < plain.low
    assert found.point < found.high < plain.high


def coverage(scores: np.ndarray, tasks: np.ndarray, rate: float, per_task: int, draws: int) -> float:
    """How often the interval of `per_task` prompts per task drawn i.i.d. holds the whole population's figure, each
    drawn prompt failing (scoring 0) with chance `rate`."""
    truth = overall(scores * (1 - rate), list(tasks)).point()
    rng, held = np.random.default_rng(11), 0
    by_task = {task: np.flatnonzero(tasks == task) for task in TASKS}
    for _ in range(draws):
        picked = np.concatenate([rng.choice(by_task[task], per_task) for task in TASKS])
        values = np.where(rng.random(len(picked)) < rate, 0.0, scores[picked])
        labels = list(tasks[picked])
        found = interval(overall(values, labels), Design.stratified(labels, by="task"), bounds=SCALE)
        held += found is not None and found.contains(truth)
    return held / draws


@pytest.mark.parametrize("rate", [0.0, 0.01])
def test_a_model_near_the_top_is_covered_at_its_level_whether_it_fails_rarely_or_never(released_rows, rate):  # noqa: F811
    """gpt4o_0806's rows pulled to the top (100 - 0.6 x (100 - score)), 30 prompts per task, 1,000 draws: with no
    failure the reach made the interval cover 97.8% (failures on 1% of prompts 95.9%); now the upper side pays for
    the reach."""
    _, tasks, scores, _ = released_rows["gpt4o_0806"]
    scored = np.isfinite(scores)
    near_top = 100 - 0.6 * (100 - scores[scored])
    assert 0.93 <= coverage(near_top, np.array(tasks)[scored], rate, 30, 1000) <= 0.97


def test_a_pair_whose_one_run_fails_rarely_is_covered_at_its_level(released_rows):  # noqa: F811
    """gpt4o_0806's rows pulled to the top, failing on 1% of drawn prompts, less gpt4o_0806 on the same prompts, 10
    per task, 1,000 draws: each side of the difference reaches for one run's unseen failures up to PAIRED_RATE; at
    the single figure's 1.25% it covered 98.2%."""
    _, tasks, scores, _ = released_rows["gpt4o_0806"]
    scored = np.isfinite(scores)
    tasks, scores = np.array(tasks)[scored], scores[scored]
    near_top, rate = 100 - 0.6 * (100 - scores), 0.01
    truth = overall(near_top * (1 - rate), list(tasks)).point() - overall(scores, list(tasks)).point()
    rng, held = np.random.default_rng(17), 0
    by_task = {task: np.flatnonzero(tasks == task) for task in TASKS}
    for _ in range(1000):
        picked = np.concatenate([rng.choice(by_task[task], 10) for task in TASKS])
        a = np.where(rng.random(len(picked)) < rate, 0.0, near_top[picked])
        labels = list(tasks[picked])
        design = Design.stratified(labels, by="task")
        found = paired_difference(overall(a, labels), overall(scores[picked], labels), design, scale=SCALE)
        held += found is not None and found.low <= truth <= found.high
    assert 0.93 <= held / 1000 <= 0.97


def test_a_lone_prompt_beside_a_tight_sample_pays_for_the_reach_with_its_upper_side():
    """One task holds one prompt (its variance borrowed, a symmetric t interval): where the lower side reaches past
    the t side for unseen failures, the upper side takes what that leaves of the level, as without a borrowed part."""
    labels = [task for task in TASKS[:4] for _ in range(5)] + [TASKS[4]]
    scores = np.clip(96 + np.random.default_rng(1).normal(0, 2, len(labels)), 0, 100)
    design = Design.stratified(labels, by="task")
    found, _ = pooled_interval(lambda v: overall(v, labels), scores, design=design, bounds=SCALE)
    reach = unseen_reach([(found.point - SCALE[0], 0)], found.n, found.se, LEVEL)
    assert reach > quantile(LEVEL, found.df) * found.se
    assert found.low == pytest.approx(found.point - reach)
    near = near_quantile(reach / found.se, found.df, LEVEL)
    assert found.high == pytest.approx(found.point + near * found.se)
    assert found.high < found.point + quantile(LEVEL, found.df) * found.se


def test_a_p_value_without_degrees_of_freedom_is_the_normals_as_the_interval_is():
    assert t_p_value(quantile(LEVEL, None), 1.0, None) == pytest.approx(1 - LEVEL, rel=1e-9)
    assert t_p_value(quantile(LEVEL, 12.0), 1.0, 12.0) == pytest.approx(1 - LEVEL, rel=1e-9)
