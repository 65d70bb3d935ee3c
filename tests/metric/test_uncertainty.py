"""The interval math against textbook figures and hand computations, on synthetic data with known answers."""

from __future__ import annotations

from dataclasses import asdict

import numpy as np
import pytest
from scipy.stats import t

from longform_eval.metric import uncertainty
from longform_eval.metric.uncertainty import (
    Design,
    affine,
    cluster_sums,
    independent_difference,
    interval,
    interval_method,
    interval_reasons,
    intervals,
    mean,
    paired_difference,
    product,
    rank_ranges,
    ratio,
    replicates,
    shared_units,
    statistic_interval,
    stratified_mean,
    weighted_sum,
)
from longform_eval.metric.uncertainty.borrowed import borrowed_variance
from longform_eval.metric.uncertainty.comparison import ranks
from longform_eval.metric.uncertainty.resampling import column_sums, resample_counts
from longform_eval.metric.uncertainty.sparse import pooled_interval


def test_the_module_example_runs():
    import doctest

    assert doctest.testmod(uncertainty).failed == 0


@pytest.mark.parametrize("draw", ["normal", "exponential"])
def test_a_plain_mean_agrees_with_the_textbook_t_interval(draw):
    rng = np.random.default_rng(7)
    values = rng.normal(50, 20, 20_000) if draw == "normal" else rng.exponential(10, 20_000)
    found = interval(mean(values), Design.simple(len(values)), rounds=2000, seed=0)
    se = values.std(ddof=1) / np.sqrt(len(values))
    quantile = t.ppf(0.975, len(values) - 1)
    assert found.point == pytest.approx(values.mean())
    assert found.se == pytest.approx(se, rel=1e-6)  # the n/(n-1) factor makes it the textbook s / sqrt(n)
    assert found.df == pytest.approx(len(values) - 1)
    half = quantile * se
    # no scale given: the t interval itself, drawing no resample
    assert found.low == pytest.approx(values.mean() - half, rel=1e-9)
    assert found.high == pytest.approx(values.mean() + half, rel=1e-9)
    assert (found.n, found.rounds, found.dropped) == (20_000, 0, 0)


def test_the_seed_fixes_the_interval_and_another_seed_barely_moves_it():
    values = np.random.default_rng(1).normal(size=500)
    design = Design.simple(500)
    first, again = interval(mean(values), design, seed=3), interval(mean(values), design, seed=3)
    assert first == again  # the same call on the same data in one process: bit-identical by construction
    other = interval(mean(values), design, seed=4)
    assert other.se == first.se and abs(other.width - first.width) < 0.06 * first.width  # Monte Carlo noise


def test_a_figure_near_the_top_of_its_scale_reaches_further_down_than_up():
    """Five prompts per task, scores near 90 on 0..100 (the figure near the top of -300..100): the t interval on the
    scale's logit, with the far side's floor, reaches further towards the bottom of the scale, where a model's rare
    failures lie, than towards the top, and stays on the scale."""
    tasks = [task for task in "abcde" for _ in range(5)]
    scores = np.array([80.0, 88.0, 90.0, 92.0, 95.0] * 5)
    figure = affine(stratified_mean(scores, tasks), 4, -300)
    design = Design.stratified(tasks, by="task")
    found = interval(figure, design, bounds=(-300.0, 100.0))
    half = t.ppf(0.975, found.df) * found.se
    assert found.point - found.low > 1.1 * half > half > found.high - found.point > 0.8 * half
    assert found.high < 100 and not found.clipped
    plain = interval(figure, design)
    assert plain.point - plain.low == pytest.approx(plain.high - plain.point)  # no scale: the symmetric t interval


def test_stratified_resampling_keeps_every_stratum_size():
    labels = ["a"] * 7 + ["b"] * 300 + ["c"] * 1 + ["a"] * 5 + ["b"] * 20
    design = Design.stratified(labels, by="task")
    indicators = np.column_stack([[label == name for label in labels] for name in "abc"]).astype(float)
    sums = column_sums(indicators, design, 500, np.random.default_rng(0))
    assert (sums == [12, 320, 1]).all()
    counts = np.vstack(list(resample_counts(design, 500, np.random.default_rng(0))))
    assert counts.std(axis=0).max() > 0.5  # units are redrawn, not kept: only the strata sizes hold


def test_resample_counts_come_in_chunks_that_bound_memory(monkeypatch):
    monkeypatch.setattr("longform_eval.metric.uncertainty.resampling.CHUNK_ENTRIES", 1000)
    design = Design.simple(100)
    chunks = list(resample_counts(design, 35, np.random.default_rng(0)))
    assert [len(c) for c in chunks] == [10, 10, 10, 5]
    assert all((c.sum(axis=1) == 100).all() for c in chunks)


def test_a_stratified_mean_is_the_mean_of_stratum_means_and_skips_empty_strata():
    values = np.array([10.0, 20.0, 30.0, 100.0, np.nan, np.nan])
    strata = ["x", "x", "x", "y", "z", "z"]
    figure = stratified_mean(values, strata)
    assert figure.point() == pytest.approx((20 + 100) / 2)  # z has no scored unit: left out, as the scorers do
    assert figure.n == 4


def test_a_stratum_with_one_scored_unit_borrows_a_variance_only_where_the_values_are_known():
    values = np.array([1.0, 2.0, 3.0, 4.0, 5.0, np.nan, np.nan, 7.0])
    strata = ["a"] * 5 + ["b"] * 3  # b has a single scored unit: its own spread is not measured
    design = Design.stratified(strata, by="task")
    figure = stratified_mean(values, strata)
    assert interval(figure, design) is None
    assert "a task with one prompt among larger ones" in interval_reasons({"f": figure}, design)["f"]
    found, reason = pooled_interval(lambda v: stratified_mean(v, strata), values, design=design)
    # a's variance 2.5 / 5 units; b borrows c per unit (its slope 1/2); each a quarter of the figure's
    c, df = borrowed_variance(values, design, 0.25, 2.5 / 5 / 4, 0.95)
    assert reason is None and df == 4 and 1.0 < c < 5.0  # near a's 2.5, the t quantile at 4 df widening the rest
    assert found.se == pytest.approx(np.sqrt((2.5 / 5 + c) / 4), rel=1e-6)


def test_the_borrowed_variance_covers_on_average_over_the_other_strata():
    rng = np.random.default_rng(0)
    precise = rng.normal(0, 2, 20_000)  # variance 4, measured to 1%
    one = Design.simple(len(precise))
    c, _ = borrowed_variance(precise, one, 1.0, 0.0, 0.95)
    assert c == pytest.approx(precise.var(ddof=1), rel=0.02)  # like the one other stratum: its variance
    labels = ["a"] * 20_000 + ["b"] * 20_000
    mixed = np.concatenate([rng.normal(0, 1, 20_000), rng.normal(0, 3, 20_000)])  # variances 1 and 9
    c, _ = borrowed_variance(mixed, Design.stratified(labels), 1.0, 0.0, 0.95)
    assert 5 < c < 9  # more than their mean: missing a wide stratum costs more coverage than a narrow one gives
    narrow_rest, _ = borrowed_variance(mixed, Design.stratified(labels), 1.0, 100.0, 0.95)
    assert narrow_rest < c  # a large measured part leaves the borrowed one less to make up


def test_an_undefined_figure_has_no_interval():
    values = np.full(10, np.nan)
    assert mean(values).point() is None
    assert intervals({"empty": mean(values)}, Design.simple(10))["empty"] is None


def test_a_pooled_ratio_equals_the_pooled_figure_and_the_cluster_bootstrap_is_wider():
    rng = np.random.default_rng(2)
    items, checks = 400, 16
    item_rates = rng.beta(2, 2, items)  # checks of one item are alike: strong within-item correlation
    yes = rng.random((items, checks)) < item_rates[:, None]
    judged = rng.random((items, checks)) < 0.9
    per_check_yes, per_check_judged = (yes & judged).ravel().astype(float), judged.ravel().astype(float)
    labels, sums = cluster_sums(np.repeat(np.arange(items), checks), np.column_stack([per_check_yes, per_check_judged]))
    assert labels == list(range(items))
    clustered = interval(ratio(sums[:, 0], sums[:, 1]), Design.simple(items, unit="item"), seed=0)
    naive = interval(ratio(per_check_yes, per_check_judged), Design.simple(items * checks, unit="check"), seed=0)
    assert clustered.point == pytest.approx(per_check_yes.sum() / per_check_judged.sum())
    assert naive.point == pytest.approx(clustered.point)
    assert clustered.width > 1.9 * naive.width  # the design effect: sqrt(deff) = 1.98 here
    assert clustered.n == items


def correlated_runs(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    difficulty = rng.normal(50, 20, n)  # what a prompt does to both runs
    return difficulty + rng.normal(0, 5, n), difficulty + 1 + rng.normal(0, 5, n)


def test_a_paired_difference_is_narrower_than_the_independent_one_on_correlated_runs():
    a, b = correlated_runs(600, 3)
    design = Design.simple(600)
    paired = paired_difference(mean(a), mean(b), design)
    independent = independent_difference(mean(a), design, mean(b), design)
    assert paired.difference == pytest.approx(a.mean() - b.mean()) == independent.difference
    assert paired.high - paired.low < 0.5 * (independent.high - independent.low)
    assert paired.se == pytest.approx(np.std(a - b, ddof=1) / np.sqrt(600), rel=0.06)
    assert paired.distinguishable and paired.high < 0 and paired.p_value < 0.01
    assert not independent.distinguishable  # the separate intervals overlap: only the pairing tells them apart
    assert (paired.n_paired, independent.n_paired) == (600, None)


def test_a_difference_whose_interval_holds_zero_is_not_distinguishable():
    rng = np.random.default_rng(4)
    difficulty = rng.normal(0, 10, 300)
    a, b = difficulty + rng.normal(0, 3, 300), difficulty + rng.normal(0, 3, 300)
    found = paired_difference(mean(a), mean(b), Design.simple(300), seed=0)
    assert found.low < 0 < found.high and not found.distinguishable
    assert found.p_value > 0.05
    assert found.to_dict()["distinguishable"] is False


def test_n_paired_counts_the_units_both_figures_rest_on():
    a = np.array([1.0, 2.0, np.nan, 4.0, 5.0])
    b = np.array([1.0, np.nan, 3.0, 4.0, 6.0])
    both = np.isfinite(a) & np.isfinite(b)
    found = paired_difference(mean(a, scored=both), mean(b, scored=both), Design.simple(5), rounds=200)
    assert found.n_paired == 3
    assert found.difference == pytest.approx((1 + 4 + 5) / 3 - (1 + 4 + 6) / 3)


def test_the_p_value_is_the_paired_t_tests_and_agrees_with_the_interval():
    a, b = correlated_runs(40, 11)
    found = paired_difference(mean(a), mean(b), Design.simple(40))
    d = a - b
    statistic = d.mean() / (d.std(ddof=1) / np.sqrt(40))
    t_test = 2 * t.sf(abs(statistic), 39)
    assert found.p_value == pytest.approx(t_test, rel=1e-6)  # the interval's own test: the paired t test
    assert found.df == pytest.approx(39)
    assert (found.p_value < 0.05) == found.distinguishable


def test_rank_ranges_a_clear_winner_and_two_tied_runs():
    rng = np.random.default_rng(5)
    difficulty = rng.normal(0, 10, 400)
    runs = {
        "best": mean(difficulty + 20 + rng.normal(0, 3, 400)),
        "tied_1": mean(difficulty + rng.normal(0, 3, 400)),
        "tied_2": mean(difficulty + rng.normal(0, 3, 400)),
        "worst": mean(difficulty - 20 + rng.normal(0, 3, 400)),
    }
    found = rank_ranges(runs, Design.simple(400), seed=0)
    assert (found["best"].best, found["best"].worst) == (1, 1)
    assert (found["worst"].best, found["worst"].worst) == (4, 4)
    assert (found["tied_1"].best, found["tied_1"].worst) == (2, 3) == (found["tied_2"].best, found["tied_2"].worst)
    assert {found["tied_1"].rank, found["tied_2"].rank} == {2, 3}
    lower_better = rank_ranges(runs, Design.simple(400), seed=0, higher_is_better=False)
    assert lower_better["worst"].to_dict() == {"rank": 1, "best": 1, "worst": 1}


def test_tied_values_share_the_better_rank():
    assert ranks(np.array([[3.0, 5.0, 5.0, 1.0]])).tolist() == [[3, 1, 1, 4]]


def test_composed_figures_match_their_hand_computed_points():
    rng = np.random.default_rng(6)
    x, y = rng.uniform(0, 100, 50), rng.uniform(0, 100, 50)
    y[[3, 7]] = np.nan
    assert affine(mean(x), 4, -300).point() == pytest.approx(4 * x.mean() - 300)
    both = weighted_sum([mean(x), mean(y)], [0.5, 0.5])
    assert both.point() == pytest.approx((x.mean() + np.nanmean(y)) / 2)
    assert both.n == 50
    assert product(mean(x), mean(y), 0.01).point() == pytest.approx(x.mean() * np.nanmean(y) / 100)
    draws = replicates([mean(x), both], Design.simple(50), 300, 1)
    assert draws.shape == (300, 2) and np.isfinite(draws).all()


def test_one_call_gives_every_figure_the_same_resamples_as_a_call_for_it_alone():
    x = np.random.default_rng(8).normal(size=200)
    design = Design.simple(200)
    together = intervals({"mean": mean(x), "scaled": affine(mean(x), 2)}, design, seed=9)
    alone = interval(mean(x), design, seed=9)
    # The same resamples; only the sums' rounding differs (one matrix product of another shape, another BLAS path).
    numbers = {key: value for key, value in asdict(alone).items() if not isinstance(value, bool)}
    assert {key: asdict(together["mean"])[key] for key in numbers} == pytest.approx(numbers, rel=1e-9, abs=1e-12)
    assert together["scaled"].low == pytest.approx(2 * together["mean"].low)


def test_a_statistic_of_weighted_units_sees_the_same_resamples_as_the_figures():
    rng = np.random.default_rng(10)
    values = rng.normal(size=300)
    labels = ["a", "b", "c"] * 100  # interleaved strata: the counts must come back in the units' own order
    design = Design.stratified(labels)
    as_figure = interval(stratified_mean(values, labels), design, rounds=300, seed=2)
    codes = np.array([ord(label) for label in labels])

    def stratum_means(counts: np.ndarray) -> float:
        return float(np.mean([np.average(values[codes == c], weights=counts[codes == c]) for c in np.unique(codes)]))

    as_statistic = statistic_interval(stratum_means, design, rounds=300, seed=2)
    assert as_statistic.point == pytest.approx(as_figure.point)
    # the bootstrap SE, rescaled by sqrt(n / (n - strata)), estimates the linearized one (300 resamples: a few %)
    assert as_statistic.se == pytest.approx(as_figure.se, rel=0.1)
    assert (as_statistic.low, as_statistic.high) == pytest.approx(
        (as_figure.low, as_figure.high), abs=0.1 * as_figure.width
    )
    assert (as_statistic.rounds, as_statistic.df) == (300, 297)


def test_interval_method_names_the_units_the_strata_and_the_method():
    design = Design.stratified(["chat", "qa"], by="task")
    words = interval_method(design)
    assert words.startswith("95% t interval over prompts, stratified by task: figure ± t(df) x SE on the logit")
    assert "n/(n-1) small-sample factor per task" in words and "none for a figure on one prompt per task" in words
    assert "df Welch-Satterthwaite's" in words and "bootstrap SE (2000 resamples, seed 0)" in words
    items = interval_method(Design.simple(3, unit="item"), 500, 7, 0.9)
    assert items.startswith("90% t interval over items:") and "(500 resamples, seed 7)" in items
    assert "none for a figure on one item" in items


def test_shared_units_aligns_two_runs_on_the_ids_both_have():
    ids, index_a, index_b = shared_units(["p1", "p2", "p3", "p4"], ["p4", "p9", "p2"])
    assert ids == ["p2", "p4"]
    assert index_a.tolist() == [1, 3] and index_b.tolist() == [2, 0]
    with pytest.raises(ValueError, match="ids_b: id 'p4' appears more than once"):
        shared_units(["p1"], ["p4", "p4"])


@pytest.mark.parametrize(
    "call,message",
    [
        (lambda: interval(mean([1.0, 2.0]), Design.simple(2), rounds=1), "rounds must be an integer >= 2, got 1"),
        (lambda: interval(mean([1.0, 2.0]), Design.simple(2), seed=-1), "seed must be an integer >= 0, got -1"),
        (lambda: interval(mean([1.0, 2.0]), Design.simple(2), level=95), "level must be a number in"),
        (lambda: interval(mean([1.0, 2.0]), Design.simple(3)), "figure 'figure': has 2 prompts, the design 3"),
        (lambda: mean([1.0, np.nan], scored=[True, True]), r"values\[1\]: nan is not a finite number at a scored"),
        (lambda: mean([1.0, 2.0], scored=[True]), "scored: 1 flags for 2 values"),
        (lambda: stratified_mean([1.0, 2.0], ["a"]), "strata: 1 label for 2 values"),
        (lambda: ratio([1.0], [1.0, 2.0]), "ratio: numerator"),
        (lambda: weighted_sum([mean([1.0]), mean([1.0, 2.0])], [1, 1]), "different numbers of units"),
        (lambda: Design.simple(0), "n_units must be a positive integer, got 0"),
        (lambda: rank_ranges({"m": mean([np.nan])}, Design.simple(1)), "run 'm': the figure is undefined"),
    ],
)
def test_bad_arguments_are_refused_with_a_one_line_reason(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@pytest.mark.parametrize(
    "values",
    [[70.0, 90.0], [70.0, 80.0, 90.0], [90.0] * 9 + [0.0], [90.0] * 4 + [0.0], [1.0] + [0.0] * 19, [1.0] * 39 + [0.0]],
    ids=["two", "three", "one-zero-in-ten", "one-zero-in-five", "one-success-in-20", "one-failure-in-40"],
)
def test_few_units_or_a_value_most_resamples_miss_take_students_t(values):
    """The bootstrap t is unreadable there: two units give half their resamples no spread (the interval would be a
    point), and a value most resamples miss leaves one tail unknown (a bound would run to +-1e9)."""
    values = np.array(values)
    found = interval(mean(values), Design.simple(len(values)), seed=0)
    half = t.ppf(0.975, len(values) - 1) * values.std(ddof=1) / np.sqrt(len(values))
    assert found.rounds == 0 and found.width > 0
    assert found.low == pytest.approx(values.mean() - half, rel=1e-9)
    assert found.high == pytest.approx(values.mean() + half, rel=1e-9)


def test_distinguishable_exactly_where_the_p_value_is_below_the_level():
    rng = np.random.default_rng(3)
    agreed = 0
    for _ in range(300):
        d = rng.normal(0.45, 1.0, 25) * rng.choice([1.0, 3.0], 25)  # near the edge of detection, heavy-ish tails
        found = paired_difference(mean(d), mean(np.zeros(25)), Design.simple(25))
        agreed += found.distinguishable == (found.p_value < 0.05)
    assert agreed == 300
