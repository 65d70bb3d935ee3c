"""The two sides of an interval near one end of its scale (`unseen_failures`): where the far side reaches past its t
share for failures the sample does not show, the near side takes what that leaves of the level, so that at a failure
rate of 0 the interval keeps its level; a paired difference's sides each reach for one run's failures up to
PAIRED_RATE. Checked on HelloBench's released rows pulled to the top of the scale, as bench/interval_coverage.py
draws them."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.special import bdtr, ndtr

from longform_eval.metric.helloeval.weights import TASKS
from longform_eval.metric.uncertainty import Design, affine, interval, mean, paired_difference, stratified_mean
from longform_eval.metric.uncertainty.comparison import t_p_value
from longform_eval.metric.uncertainty.intervals import quantile, scale_interval
from longform_eval.metric.uncertainty.quantiles import t_cdf
from longform_eval.metric.uncertainty.sparse import pooled_interval
from longform_eval.metric.uncertainty.unseen_failures import SHOWN_PART, near_quantile, shown_reach, unseen_reach

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


def coverage(scores: np.ndarray, tasks: np.ndarray, rate: float, per_task: int, draws: int) -> tuple[float, float]:
    """How often the interval of `per_task` prompts per task drawn i.i.d. holds the whole population's figure, each
    drawn prompt failing (scoring 0) with chance `rate`: over all draws, and over those whose sample shows a failure
    (NaN where none does)."""
    truth = overall(scores * (1 - rate), list(tasks)).point()
    rng, held, shown = np.random.default_rng(11), [], []
    by_task = {task: np.flatnonzero(tasks == task) for task in TASKS}
    for _ in range(draws):
        picked = np.concatenate([rng.choice(by_task[task], per_task) for task in TASKS])
        failed = rng.random(len(picked)) < rate
        values = np.where(failed, 0.0, scores[picked])
        labels = list(tasks[picked])
        found = interval(overall(values, labels), Design.stratified(labels, by="task"), bounds=SCALE)
        held.append(found is not None and found.contains(truth))
        shown.append(failed.any())
    held_shown = [h for h, s in zip(held, shown, strict=True) if s]
    return float(np.mean(held)), float(np.mean(held_shown)) if held_shown else math.nan


@pytest.mark.parametrize("rate", [0.0, 0.01])
def test_a_model_near_the_top_is_covered_at_its_level_whether_it_fails_rarely_or_never(released_rows, rate):  # noqa: F811
    """gpt4o_0806's rows pulled to the top (100 - 0.6 x (100 - score)), 30 prompts per task, 1,000 draws: with no
    failure the reach made the interval cover 97.8% (failures on 1% of prompts 95.9%); now the upper side pays for
    the reach."""
    _, tasks, scores, _ = released_rows["gpt4o_0806"]
    scored = np.isfinite(scores)
    near_top = 100 - 0.6 * (100 - scores[scored])
    assert 0.93 <= coverage(near_top, np.array(tasks)[scored], rate, 30, 1000)[0] <= 0.97


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


def test_the_near_side_reaches_as_far_as_a_sample_showing_more_failures_than_their_rate_needs():
    """At each failure rate below the share shown, the chance of showing that many or more times the chance that the
    rest's error does not make up for them is at most SHOWN_PART of what the interval may miss, with equality at the
    worst rate; no failure shown, or no spread left: no such side."""
    failed, n, distance, se = 2, 150, 370.0, 1.6
    reach = shown_reach(failed, n, distance, se, LEVEL)
    share = SHOWN_PART * (1 - LEVEL)
    rates = np.linspace(1e-6, failed / n, 4001)
    chance = 1 - bdtr(failed - 1, n, rates)
    misses = chance * ndtr(((failed - rates * n) * distance / (n - failed) - reach) / se)
    assert misses.max() == pytest.approx(share, rel=1e-3)  # the worst rate found on SHOWN_GRID
    assert shown_reach(0, n, distance, se, LEVEL) is None and shown_reach(failed, n, distance, 0.0, LEVEL) is None
    assert shown_reach(n, n, distance, se, LEVEL) is None


def test_a_tight_sample_near_the_top_that_shows_a_failure_draws_its_upper_side_in():
    """One zero among 150 prompts near the top: the t side on the whole SE, which that zero inflates, reached about
    twice as far above the figure as the zero's own shortfall needs; the upper side is now the shown reach, on the
    spread of the prompts that did not fail."""
    scores, labels = tight_sample(30, zeros=1)
    design = Design.stratified(labels, by="task")
    figure = overall(scores, labels)
    found = interval(figure, design, bounds=SCALE)
    plain = scale_interval(found.point, found.se, found.df, found.n, LEVEL, SCALE)
    rest = interval(overall(scores[1:], labels[1:]), Design.stratified(labels[1:], by="task"), bounds=SCALE)
    reach = shown_reach(1, found.n, found.point - SCALE[0], rest.se * 149 / 150, LEVEL)
    assert found.high == pytest.approx(found.point + reach, rel=0.02)
    assert found.high - found.point < 0.75 * (plain.high - plain.point)


def test_a_model_near_the_top_that_fails_on_half_a_percent_is_covered_at_its_level(released_rows):  # noqa: F811
    """gpt4o_0806's rows pulled to the top, failing on 0.5% of drawn prompts, 30 prompts per task, 1,000 draws: the
    samples that show a failure (54%) held the truth 98.7% on a t side their own failure inflated, the cell 98.5%;
    with the near side drawn in where failures show (`shown_reach`) within the band."""
    _, tasks, scores, _ = released_rows["gpt4o_0806"]
    scored = np.isfinite(scores)
    near_top = 100 - 0.6 * (100 - scores[scored])
    held, held_shown = coverage(near_top, np.array(tasks)[scored], 0.005, 30, 1000)
    assert 0.93 <= held <= 0.97 and 0.9 <= held_shown <= 0.97


@pytest.mark.parametrize(
    ("scale", "levels", "shares"),
    [((0.0, 1.0), (1.0, 0.5, 0.0), (0.6, 0.2, 0.2)), ((-1.0, 1.0), (1.0, 0.0, -1.0), (0.5, 0.3, 0.2))],
)
def test_common_failures_beside_ties_keep_the_level(scale, levels, shares):
    """A win rate with ties (a fifth of the units losses, at the far end) and a GSB score: the units at the far end are
    no rare failures, and the near side drawn in for them must measure their shift from the units that did not fail
    (from the figure it fell short by their share and covered 92%); 100 units, 1,000 draws."""
    rng, held = np.random.default_rng(5), 0
    truth = float(np.dot(levels, shares))
    for _ in range(1000):
        values = rng.choice(levels, 100, p=shares)
        found = interval(mean(values), Design.simple(100), bounds=scale)
        held += found.contains(truth)
    assert 0.93 <= held / 1000 <= 0.97


def test_a_figure_in_the_lower_half_draws_its_upper_side_out_and_its_lower_side_in():
    """The mirror of a figure near the top: near the bottom of 0..1 the far end is the top, a unit at 1 is the failure
    the sample shows, and the side drawn in is the lower one, never below the figure and never wider."""
    values = np.clip(0.04 + np.random.default_rng(2).normal(0, 0.01, 150), 0, 1)
    values[0] = 1.0
    found = interval(mean(values), Design.simple(150), bounds=(0.0, 1.0))
    plain = scale_interval(found.point, found.se, found.df, found.n, LEVEL, (0.0, 1.0))
    rest = interval(mean(values[1:]), Design.simple(149), bounds=(0.0, 1.0))
    reach = shown_reach(1, 150, 1.0 - found.point, rest.se * 149 / 150, LEVEL)
    assert plain.low < found.low == pytest.approx(found.point - reach, rel=0.02) and found.low < found.point
    assert found.high >= plain.high
