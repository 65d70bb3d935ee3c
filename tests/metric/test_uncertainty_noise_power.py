"""Judge noise and power against synthetic data with known variances and against simulated experiments."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import nct, t

from longform_eval.metric.uncertainty import (
    Design,
    affine,
    independent_se,
    interval,
    judge_sd,
    mean,
    minimum_detectable_difference,
    paired_difference,
    prompts_needed,
    row_scores,
    split_variance,
    stratified_mean,
    within_row_variance,
)

PROMPT_SD, JUDGE_SD = 10.0, 15.0
TASKS = ("chat", "summarization", "qa", "completion", "generation")


def judged_rows(n: int, k: int, seed: int, prompt_sd: float = PROMPT_SD, judge_sd_: float = JUDGE_SD) -> np.ndarray:
    """(n, k) judge samples: a prompt effect shared by the row's samples plus independent judge noise."""
    rng = np.random.default_rng(seed)
    return rng.normal(50, prompt_sd, (n, 1)) + rng.normal(0, judge_sd_, (n, k))


def test_row_scores_and_the_judge_sd_pool_rows_with_two_or_more_scored_samples():
    samples = np.array([[1.0, 3.0, np.nan], [2.0, 2.0, 2.0], [5.0, np.nan, np.nan], [np.nan] * 3])
    scores, counts = row_scores(samples)
    assert scores[:3].tolist() == [2.0, 2.0, 5.0] and np.isnan(scores[3])
    assert counts.tolist() == [2, 3, 1, 0]
    variance, degrees = within_row_variance(samples)  # (1 + 1 + 0 + 0 + 0) / ((2 - 1) + (3 - 1))
    assert (variance, degrees) == (pytest.approx(2 / 3), 3)
    assert judge_sd(samples) == pytest.approx(math.sqrt(2 / 3))
    assert judge_sd(samples[:, :1]) is None  # one sample per row: the judge's noise is not measured


def test_the_judge_sd_recovers_the_noise_of_a_synthetic_judge():
    samples = judged_rows(3000, 3, seed=1)
    samples[::7, 2] = np.nan  # some samples unscored
    assert judge_sd(samples) == pytest.approx(JUDGE_SD, rel=0.03)


@pytest.mark.parametrize("mixed", [False, True])
def test_the_variance_split_recovers_the_known_prompt_and_judge_shares(mixed):
    n = 5000
    samples = judged_rows(n, 3, seed=2)
    if mixed:  # half the rows with one scored sample, the others with three
        samples[: n // 2, 1:] = np.nan
    scores, counts = row_scores(samples)
    found = interval(mean(scores), Design.simple(n), seed=0)
    split = split_variance(lambda s: mean(s), samples, found.se)
    judge_part = JUDGE_SD**2 * np.mean(1 / counts)  # per row, in the row scores' variance
    truth = judge_part / (PROMPT_SD**2 + judge_part)
    assert split.judge_share == pytest.approx(truth, abs=0.04)
    assert split.prompt_share == pytest.approx(1 - truth, abs=0.04)
    assert split.total == pytest.approx((PROMPT_SD**2 + judge_part) / n, rel=0.1)
    assert split.judge == pytest.approx(judge_part / n, rel=0.05)
    assert split.n == n and split.judge_samples == pytest.approx(counts.mean())


def test_the_split_of_a_stratified_score_and_what_more_judge_samples_would_buy():
    n, k = 4000, 3
    tasks = [TASKS[i % 5] for i in range(n)]
    samples = judged_rows(n, k, seed=3)

    def build(scores: np.ndarray):
        return affine(stratified_mean(scores, tasks), 4, -300)

    design = Design.stratified(tasks, by="task")
    found = interval(build(row_scores(samples)[0]), design, seed=0)
    split = split_variance(build, samples, found.se)
    # overall = 4/5 * sum of task means: Var_judge = (4/5)^2 * sum over tasks of s_w^2 / (k n_t)
    assert split.judge == pytest.approx(0.64 * 5 * JUDGE_SD**2 / (k * n / 5), rel=0.05)
    assert split.judge_share == pytest.approx(75 / 175, abs=0.04)
    # a fresh run with one judge sample per row: its bootstrap SE is what se_with predicted
    single = judged_rows(n, 1, seed=4)
    measured = interval(build(single[:, 0]), design, seed=0).se
    assert split.se_with(judge_samples=1) == pytest.approx(measured, rel=0.08)
    assert split.se_with(prompts=4 * n) == pytest.approx(math.sqrt(split.prompt + split.judge) / 2)
    assert split.se_with(judge_samples=10**9) == pytest.approx(math.sqrt(split.prompt), rel=1e-6)
    assert set(split.to_dict()) == {"se", "prompt_share", "judge_share", "n", "judge_samples"}


def test_no_split_without_repeated_judge_samples():
    samples = judged_rows(100, 1, seed=5)
    assert split_variance(lambda s: mean(s), samples, 1.0) is None


def test_minimum_detectable_difference_by_hand():
    assert minimum_detectable_difference(1.0) == pytest.approx(1.959964 + 0.841621, abs=1e-5)
    assert minimum_detectable_difference(2.0, alpha=0.01, power=0.9) == pytest.approx(2 * (2.575829 + 1.281552), 1e-5)
    assert minimum_detectable_difference(0.0) == 0.0


def test_minimum_detectable_difference_of_a_t_test_is_the_noncentral_t_solution():
    assert minimum_detectable_difference(1.0, df=1e6) == pytest.approx(1.959964 + 0.841621, abs=1e-3)
    found = minimum_detectable_difference(1.0, df=10)
    critical = t.ppf(0.975, 10)
    assert nct.sf(critical, 10, found) + nct.cdf(-critical, 10, found) == pytest.approx(0.8, abs=1e-6)
    assert found > 1.959964 + 0.841621  # few degrees of freedom: a larger difference is needed


def test_prompts_needed_by_hand():
    plan = prompts_needed(1.0, 0.5, 100)
    # the normal plan's 197 prompts give a t test at 196 df slightly less than 80%: the t plan takes 199
    assert math.ceil(100 * (2.801585 * 0.5 / 1.0) ** 2) == 197 and plan.prompts == 199
    assert plan.se_difference == pytest.approx(0.5 * math.sqrt(100 / 199))
    assert minimum_detectable_difference(plan.se_difference, df=198) <= 1.0
    assert minimum_detectable_difference(0.5 * math.sqrt(100 / 198), df=197) > 1.0  # one fewer does not suffice
    assert "independent" not in plan.assumptions
    single = prompts_needed(-1.0, independent_se(0.5), 100, paired=False)
    assert math.ceil(100 * (2.801585 * 0.5 * math.sqrt(2)) ** 2) == 393 and single.prompts == 395
    assert prompts_needed(1.0, 0.5, 100, strata=5, df_share=0.5).prompts > plan.prompts
    assert "no pairing gain (conservative)" in single.assumptions
    assert set(plan.to_dict()) == {
        "prompts",
        "difference",
        "se_difference",
        "alpha",
        "power",
        "assumptions",
        "expected_power",
    }


def paired_runs(n: int, true_difference: float, rng: np.random.Generator, runs: int = 1) -> tuple:
    difficulty = rng.normal(50, 20, (runs, n))  # shared by both models on a prompt
    return difficulty + true_difference + rng.normal(0, 8, (runs, n)), difficulty + rng.normal(0, 8, (runs, n))


def rejection_rate(differences: np.ndarray, se: np.ndarray) -> float:
    return float(np.mean(np.abs(differences) / se > 1.959964))


def test_the_planned_prompts_detect_the_difference_four_times_in_five():
    rng = np.random.default_rng(6)
    delta = 1.5
    a, b = paired_runs(2000, delta, rng)  # a large reference: its SE is measured to about 2%
    reference = paired_difference(mean(a[0]), mean(b[0]), Design.simple(2000), seed=0)
    plan = prompts_needed(delta, reference.se, 2000)
    assert 400 < plan.prompts < 500  # sd of a paired difference 8 * sqrt(2): 2.8016^2 * 128 / 1.5^2 = 447 prompts
    a, b = paired_runs(plan.prompts, delta, rng, runs=2000)
    d = a - b
    power = rejection_rate(d.mean(axis=1), d.std(axis=1, ddof=1) / math.sqrt(plan.prompts))
    assert power == pytest.approx(0.80, abs=0.05)


def test_a_plan_from_a_single_run_is_conservative_for_paired_runs_and_right_for_independent_ones():
    rng = np.random.default_rng(7)
    delta, n_ref = 6.0, 2000
    one_run = paired_runs(n_ref, 0.0, rng)[0][0]
    reference = interval(mean(one_run), Design.simple(n_ref), seed=0)
    plan = prompts_needed(delta, independent_se(reference.se), n_ref, paired=False)
    a = rng.normal(50, 20, (2000, plan.prompts)) + rng.normal(0, 8, (2000, plan.prompts)) + delta
    b = rng.normal(50, 20, (2000, plan.prompts)) + rng.normal(0, 8, (2000, plan.prompts))  # other prompts
    se = np.sqrt(a.var(axis=1, ddof=1) / plan.prompts + b.var(axis=1, ddof=1) / plan.prompts)
    assert rejection_rate(a.mean(axis=1) - b.mean(axis=1), se) == pytest.approx(0.80, abs=0.05)
    a, b = paired_runs(plan.prompts, delta, rng, runs=500)
    d = a - b
    assert rejection_rate(d.mean(axis=1), d.std(axis=1, ddof=1) / math.sqrt(plan.prompts)) > 0.95


@pytest.mark.parametrize(
    "call,message",
    [
        (lambda: prompts_needed(0, 1.0, 100), "difference must be a non-zero number, got 0"),
        (lambda: prompts_needed(1.0, -1.0, 100), "se_difference must be a positive number, got -1.0"),
        (lambda: prompts_needed(1.0, 1.0, 0), "n_reference must be a positive integer, got 0"),
        (lambda: minimum_detectable_difference(1.0, alpha=1.5), r"alpha must be a number in \(0, 1\), got 1.5"),
        (lambda: minimum_detectable_difference(1.0, power=0), r"power must be a number in \(0, 1\), got 0"),
        (lambda: row_scores(np.ones(3)), r"samples: expected a \(rows, judge samples\) array"),
    ],
)
def test_bad_power_arguments_are_refused_with_a_one_line_reason(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_power_at_one_degree_of_freedom_is_finite_and_agrees_with_the_integral_elsewhere():
    """Two prompts in one task leave one degree of freedom, where scipy's noncentral t gives NaN far out."""
    from scipy.stats import t

    from longform_eval.metric.uncertainty.power import integrated_t_power, minimum_detectable_difference, t_power

    assert 0.9 < t_power(22.41, 1.0) < 0.95
    critical = float(t.ppf(0.975, 10))
    assert integrated_t_power(3.0, 10.0, critical) == pytest.approx(t_power(3.0, 10.0), rel=1e-6)
    assert minimum_detectable_difference(1.0, df=1.0) == pytest.approx(16.33, abs=0.05)


def skewed_differences(rng: np.random.Generator, shape, shift: float = 0.0) -> np.ndarray:
    """Per-prompt paired differences with mean `shift`: mostly small, one in ten a large one (a model scoring 0)."""
    return shift + np.where(rng.random(shape) < 0.1, 30.0, 0.0) + rng.normal(0, 4, shape) - 3.0


def test_a_plan_by_simulation_reaches_the_power_it_states_on_skewed_differences():
    """A reference of 600 paired differences in two strata (400 and 200); the plan simulates runs from them. Runs of
    the planned size drawn afresh from the population detect the difference as often as the plan states."""
    from longform_eval.metric.uncertainty.power_simulation import (
        PairedReference,
        allocate,
        simulated_plan,
        simulated_power,
    )
    from longform_eval.metric.uncertainty.variance import linearized, rests_on

    rng = np.random.default_rng(11)
    labels = ["a"] * 400 + ["b"] * 200
    reference_figure = stratified_mean(skewed_differences(rng, 600), labels)
    reference = PairedReference.of(linearized(reference_figure), rests_on(reference_figure), Design.stratified(labels))
    plan = simulated_plan(reference, 2.5, simulations=400)
    # the size grown until its draws reach 80% plus one Monte Carlo SE; the power stated is the lower 95% bound of
    # the power measured on other draws, twice as many
    assert plan.expected_power >= 0.8 and "by simulation" in plan.assumptions
    fresh = simulated_power(reference, plan.prompts, 2.5, 0.95, 800, seed=2)
    assert plan.expected_power == pytest.approx(fresh - 1.6449 * math.sqrt(fresh * (1 - fresh) / 800), abs=1e-4)
    sizes = allocate(plan.prompts, [400, 200])
    planned = ["a"] * sizes[0] + ["b"] * sizes[1]
    design, zeros = Design.stratified(planned), np.zeros(len(planned))
    detected = 0
    for _ in range(400):
        found = paired_difference(
            stratified_mean(skewed_differences(rng, len(planned), 2.5), planned),
            stratified_mean(zeros, planned),
            design,
        )
        detected += found.low > 0
    assert detected / 400 == pytest.approx(plan.expected_power, abs=0.06)


def test_a_one_reference_plan_with_the_scale_bound_keeps_its_power_whatever_the_other_model():
    """The reference varies little (sd 10 on 0..100); the other model as much as the scale allows (0 or 100). A plan
    taking it to vary like the reference falls far short; the bounded plan reaches 80%."""
    from longform_eval.metric.uncertainty.power import scale_bound_se

    rng = np.random.default_rng(12)
    delta, n_ref = 5.0, 400
    se_ref = 10 / math.sqrt(n_ref)
    bounded = prompts_needed(delta, math.hypot(se_ref, scale_bound_se(100.0, [n_ref])), n_ref, paired=False)
    typical = prompts_needed(delta, independent_se(se_ref), n_ref, paired=False)
    powers = {}
    for name, plan in (("bounded", bounded), ("typical", typical)):
        n = plan.prompts
        a = rng.normal(50 + delta, 10, (2000, n))
        b = 100.0 * (rng.random((2000, n)) < 0.5)
        se = np.sqrt(a.var(axis=1, ddof=1) / n + b.var(axis=1, ddof=1) / n)
        powers[name] = rejection_rate(a.mean(axis=1) - b.mean(axis=1), se)
    assert powers["bounded"] >= 0.78 and powers["typical"] < 0.3
