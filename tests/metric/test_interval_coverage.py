"""Coverage of the intervals at a few prompts per task, on the released HelloBench verdicts (issue 31), and the
rules around them: no interval on one unit per stratum, bounds clipped to the scale, one SE, power reached."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import norm

from longform_eval.metric.helloeval.weights import TASKS
from longform_eval.metric.uncertainty import (
    Design,
    affine,
    difference_reason,
    interval,
    interval_reasons,
    intervals,
    mean,
    paired_difference,
    prompts_needed,
    rank_ranges,
    split_variance,
    stratified_mean,
)
from longform_eval.metric.uncertainty.sparse import pooled_difference, pooled_interval
from longform_eval.metric.uncertainty.variance import linearized, rests_on, stratum_parts

from .test_uncertainty_scorers import released_rows  # noqa: F401  (the fixture)

SCALE = (-300.0, 100.0)


def overall(scores: np.ndarray, tasks: list[str]):
    return affine(stratified_mean(scores, tasks), 4, -300)


def population(released_rows, model: str) -> tuple[np.ndarray, np.ndarray]:  # noqa: F811
    _, tasks, scores, _ = released_rows[model]
    scored = np.isfinite(scores)
    return scores[scored], np.array(tasks)[scored]


def old_interval_holds(figure, design: Design, truth: float) -> bool:
    """The former method in the limit of many resamples: the plain bootstrap's SE ((n_h - 1) / n_h of the variance)
    and the normal quantile."""
    parts, dfs, _, _ = stratum_parts(linearized(figure), rests_on(figure), design)
    se = math.sqrt(sum(part * df / (df + 1) for part, df in zip(parts, dfs, strict=True)))
    return abs(figure.point() - truth) <= norm.ppf(0.975) * se


def test_five_prompts_per_task_cover_the_truth_at_least_92_percent_where_the_old_method_did_not(released_rows):  # noqa: F811
    scores, tasks = population(released_rows, "llama31_8b")
    truth = overall(scores, list(tasks)).point()
    rng = np.random.default_rng(0)
    new = old = 0
    for _ in range(300):
        picked = np.concatenate([rng.choice(np.flatnonzero(tasks == task), 5, replace=True) for task in TASKS])
        labels = list(tasks[picked])
        figure, design = overall(scores[picked], labels), Design.stratified(labels, by="task")
        found = interval(figure, design, bounds=SCALE)
        new += found.contains(truth)
        old += old_interval_holds(figure, design, truth)
    assert new / 300 >= 0.92
    assert old / 300 < 0.92  # the issue measured 86.5-88.9% for the percentile bootstrap


def test_one_prompt_per_task_gets_no_interval_and_says_why():
    scores = np.array([80.0, 60.0, 90.0, 70.0, 95.0])
    labels = list(TASKS)
    design = Design.stratified(labels, by="task")
    figure = overall(scores, labels)
    assert intervals({"overall": figure}, design)["overall"] is None
    assert interval_reasons({"overall": figure}, design) == {"overall": "one prompt per task: no variance to estimate"}
    found, reason = pooled_interval(lambda v: overall(v, labels), scores, design=design)
    assert found is None and reason == "one prompt per task: no variance to estimate"
    other = overall(scores - 30, labels)
    assert paired_difference(figure, other, design) is None
    assert difference_reason(figure, other, design) == "one prompt per task: no variance to estimate"
    assert pooled_difference(lambda v: overall(v, labels), lambda v: overall(v, labels), scores, scores - 30, design)[
        1
    ] == ("one prompt per task: no variance to estimate")
    ranks = rank_ranges({"a": figure, "b": other}, design)
    assert (ranks["a"].best, ranks["a"].worst, ranks["b"].best, ranks["b"].worst) == (1, 2, 1, 2)


def test_identical_values_get_no_zero_width_interval():
    figure = mean(np.full(8, 100.0))
    assert interval(figure, Design.simple(8)) is None
    assert (
        interval_reasons({"f": figure}, Design.simple(8))["f"]
        == "the prompts' values do not vary: no variance to estimate"
    )


def test_an_interval_stays_on_the_scale_without_being_clipped():
    """A task score near the top of -300..100 on 8 prompts: the symmetric t interval passed 100 and was cut; on the
    scale's logit it ends below 100 by construction."""
    scores = np.array([100.0, 100.0, 100.0, 100.0, 85.0, 100.0, 95.0, 100.0])
    figure, design = affine(mean(scores), 4, -300), Design.simple(8)
    found = interval(figure, design, bounds=SCALE)
    plain = interval(figure, design)
    assert plain.high > 100  # the t interval without the scale leaves it
    assert -300 < found.low < found.point < found.high < 100 and not found.clipped
    assert "clipped" not in found.to_dict()
    at_the_top = interval(affine(mean(np.array([100.0, 100.0, 100.0])), 4, -300), Design.simple(3), bounds=SCALE)
    # every prompt at 100: no spread, yet 3 of 3 is no certainty: Wilson's one-sided bound, mapped onto the scale
    assert (at_the_top.low, at_the_top.point, at_the_top.high) == pytest.approx(
        (-300 + 400 * 3 / (3 + 1.96**2), 100, 100), abs=0.05
    )
    assert interval(affine(mean(np.array([100.0, 100.0, 100.0])), 4, -300), Design.simple(3)) is None  # no scale


def test_the_variance_split_and_the_interval_have_one_se():
    rng = np.random.default_rng(2)
    prompt = rng.normal(60, 2, 20)
    samples = prompt[:, None] + rng.normal(0, 15, (20, 2))  # the judge's noise far larger than the prompts'
    rows = samples.mean(axis=1)
    found = interval(mean(rows), Design.simple(20))
    parts = split_variance(lambda s: mean(s), samples, found.se)
    assert parts.judge > parts.total  # the estimate of the judge's part exceeds the measured total here
    assert parts.to_dict()["se"] == pytest.approx(found.se)
    assert parts.to_dict()["judge_share"] == pytest.approx(1.0)
    assert parts.se_with() == pytest.approx(found.se)


def test_a_plan_reaches_its_power_by_simulation():
    rng = np.random.default_rng(5)
    sd, delta = 10.0, 3.0
    plan = prompts_needed(delta, sd / math.sqrt(400), 400)  # the SE of a paired difference over 400 prompts
    assert plan.prompts == 90  # the normal plan: (2.8016 x 10 / 3)^2 = 87.2, 88 prompts; a t test needs 90
    found = 0
    for _ in range(1000):
        d = rng.normal(delta, sd, plan.prompts)
        result = interval(mean(d), Design.simple(plan.prompts))
        found += result.low > 0
    assert found / 1000 == pytest.approx(0.8, abs=0.035)


def near_the_top_with_rare_zeros(released_rows) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # noqa: F811
    """gpt4o_0806's rows pulled to the top of the scale with a zero on three prompts (two in chat, one in
    heuristic_text_generation), and the rows it was made from: a pair whose difference's rare values are the zeros."""
    scores, tasks = population(released_rows, "gpt4o_0806")
    top = 100 - 0.6 * (100 - scores)
    for task, k in (("chat", 0), ("chat", 1), ("heuristic_text_generation", 0)):
        top[np.flatnonzero(tasks == task)[k]] = 0.0
    return top, scores, tasks


def test_a_paired_difference_allows_for_the_rare_failures_its_sample_does_not_show(released_rows):  # noqa: F811
    top, base, tasks = near_the_top_with_rare_zeros(released_rows)
    truth = overall(top, list(tasks)).point() - overall(base, list(tasks)).point()
    rng, allowed, plain = np.random.default_rng(0), 0, 0
    for _ in range(400):
        picked = np.concatenate([rng.choice(np.flatnonzero(tasks == task), 30, replace=True) for task in TASKS])
        labels = list(tasks[picked])
        a, b, design = overall(top[picked], labels), overall(base[picked], labels), Design.stratified(labels, by="task")
        found, t_only = paired_difference(a, b, design, scale=SCALE), paired_difference(a, b, design)
        allowed += found.low <= truth <= found.high
        plain += t_only.low <= truth
        assert found.low <= t_only.low and found.high >= t_only.high  # each run's unseen failures: a's lower a - b
        assert found.distinguishable == (found.p_value < 0.05)
    assert allowed / 400 >= 0.925  # bench/interval_coverage.py: 93-95% at 2,000 draws
    assert plain / 400 < 0.9  # the t interval alone: 86%


def test_the_difference_of_two_runs_in_the_middle_of_the_scale_is_barely_widened(released_rows):  # noqa: F811
    scores, tasks = population(released_rows, "llama31_8b")
    other, _ = population(released_rows, "llama31_8b")
    labels, design = list(tasks), Design.stratified(list(tasks), by="task")
    a, b = overall(scores, labels), overall(np.clip(other[::-1] * 0.9, 0, 100), labels)
    plain, allowed = paired_difference(a, b, design), paired_difference(a, b, design, scale=SCALE)
    assert plain.se == allowed.se
    assert 0 <= (allowed.high - allowed.low) - (plain.high - plain.low) < 0.03 * (plain.high - plain.low)
