"""The reach of an interval for failures its sample does not show (`intervals.unseen_reach`): it stays wide where a
few units show none, shrinks as more units show none, is nothing where the failures show, keeps the figure inside
the interval, and on a typical model's sample is about the width of the fixed allowance it replaced."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.special import expit, ndtri, stdtrit

from longform_eval.metric.helloeval.weights import TASKS
from longform_eval.metric.uncertainty import Design, affine, interval, mean, paired_difference, product, stratified_mean
from longform_eval.metric.uncertainty.comparison import difference_figure, failure_reaches
from longform_eval.metric.uncertainty.intervals import (
    quantile,
)
from longform_eval.metric.uncertainty.power_simulation import planned_interval
from longform_eval.metric.uncertainty.sparse import pooled_interval
from longform_eval.metric.uncertainty.unseen_failures import UNSEEN_RATE, failed_units, unseen_reach
from longform_eval.metric.uncertainty.variance import linearized

from .test_uncertainty_scorers import released_rows  # noqa: F401  (the fixture)

SCALE = (-300.0, 100.0)
BETA = 0.05  # the share a 95% interval may miss


def overall(scores: np.ndarray, tasks: list[str]):
    return affine(stratified_mean(scores, tasks), 4, -300)


def test_the_reach_stays_wide_where_the_sample_shows_no_failure():
    """No spread, no failure seen: the reach is the whole bias of failures on UNSEEN_RATE of the units (the chance of
    seeing none of them is above the level's share), however few the units."""
    for n in (10, 25, 50, 150):
        assert unseen_reach([(360.0, 0)], n, 0.0, 1 - BETA) == pytest.approx(UNSEEN_RATE * 360.0)
    # beside an SE, at the failure rate where the sample most likely hides them: bias + se x z(1 - beta / P(none))
    expected = UNSEEN_RATE * 360.0 + 2.0 * ndtri(1 - BETA / (1 - UNSEEN_RATE) ** 50)
    assert unseen_reach([(360.0, 0)], 50, 2.0, 1 - BETA) == pytest.approx(expected, rel=1e-9)


def test_the_reach_shrinks_as_more_units_show_no_failure():
    """The same spread per unit on more units: the reach falls, and once so many units show none that missing a
    failure rate that matters is unlikely, the t interval alone is wider."""
    reaches = [unseen_reach([(360.0, 0)], n, 60.0 / math.sqrt(n), 1 - BETA) for n in (25, 50, 150, 400, 1000, 3000)]
    assert all(a > b for a, b in zip(reaches, reaches[1:], strict=False))
    assert reaches[-1] < stdtrit(3000, 0.975) * 60.0 / math.sqrt(3000)
    assert unseen_reach([(360.0, 0)], 50, 2.0, 1 - BETA) > ndtri(0.975) * 2.0  # a tight sample of 50: past the t side


def test_the_failures_a_sample_shows_take_the_place_of_the_reach():
    """Failures seen at the allowed rate: nothing unseen to reach for (the SE holds them); one seen of 150 still
    leaves room for more, less than none seen."""
    assert unseen_reach([(360.0, math.ceil(UNSEEN_RATE * 150))], 150, 1.0, 1 - BETA) == 0.0
    none, one = unseen_reach([(360.0, 0)], 150, 1.0, 1 - BETA), unseen_reach([(360.0, 1)], 150, 1.0, 1 - BETA)
    assert none > one > 0
    assert unseen_reach([], 150, 1.0, 1 - BETA) == 0.0 and unseen_reach([(360.0, 0)], 0, 1.0, 1 - BETA) == 0.0


def test_a_sample_counts_its_failures_at_the_far_end_of_the_scale():
    labels = [task for task in TASKS for _ in range(4)]
    scores = np.full(len(labels), 90.0)
    scores[[0, 5]], scores[7] = 0.0, 100.0
    figure = overall(scores, labels)
    assert failed_units(figure, figure.point(), SCALE) == 2  # near the top: its failures are the zeros
    low = overall(100.0 - scores, labels)
    assert failed_units(low, low.point(), SCALE) == 2  # near the bottom: the hundreds
    assert failed_units(figure, figure.point(), None) == 0
    assert failed_units(product(mean(scores), mean(scores)), 8100.0, (0.0, 10000.0)) == 0  # no unit values


def test_every_interval_holds_its_figure_within_the_scale():
    rng = np.random.default_rng(0)
    for n in (2, 5, 30):
        labels = [task for task in TASKS for _ in range(n)]
        design = Design.stratified(labels, by="task")
        for _ in range(40):
            a = np.where(rng.random(len(labels)) < 0.05, 0.0, np.clip(95 + rng.normal(0, 4, len(labels)), 0, 100))
            b = np.clip(a - 3 + rng.normal(0, 5, len(labels)), 0, 100)
            fa, fb = overall(a, labels), overall(b, labels)
            found = interval(fa, design, bounds=SCALE)
            if found is not None:
                assert SCALE[0] <= found.low <= found.point <= found.high <= SCALE[1]
            difference = paired_difference(fa, fb, design, scale=SCALE)
            if difference is not None:
                assert -400 <= difference.low <= difference.difference <= difference.high <= 400
                assert difference.distinguishable == (difference.p_value < 0.05)


def test_a_lone_prompt_beside_a_sample_without_failures_reaches_for_them():
    labels = [task for task in TASKS[:4] for _ in range(5)] + [TASKS[4]]
    scores = np.clip(96 + np.random.default_rng(1).normal(0, 2, len(labels)), 0, 100)
    design = Design.stratified(labels, by="task")
    found, _ = pooled_interval(lambda v: overall(v, labels), scores, design=design, bounds=SCALE)
    reach = unseen_reach([(found.point - SCALE[0], 0)], found.n, found.se, 1 - BETA)
    assert found.low == pytest.approx(found.point - reach) and found.point - found.low > found.high - found.point


def test_the_simulated_plan_interval_counts_the_failures_its_units_show():
    """A pair near the top where one run shows zeros: the interval a power plan simulates, given the failures each
    run's units show, is the one `paired_difference` prints."""
    rng = np.random.default_rng(2)
    labels = [task for task in TASKS for _ in range(10)]
    design = Design.stratified(labels, by="task")
    b = np.clip(90 + rng.normal(0, 3, len(labels)), 0, 100)
    a = np.clip(b + 2 + rng.normal(0, 2, len(labels)), 0, 100)
    a[[3, 17]] = 0.0
    fa, fb = overall(a, labels), overall(b, labels)
    printed = paired_difference(fa, fb, design, scale=SCALE)
    points = (float(fa.point()), float(fb.point()))
    failed = (failed_units(fa, points[0], SCALE), failed_units(fb, points[1], SCALE))
    assert failed == (2, 0)
    z = linearized(difference_figure(fa, fb))
    simulated = planned_interval(points[0] - points[1], points, z, design, 0.95, SCALE, failed=failed)
    assert (simulated.low, simulated.high) == pytest.approx((printed.low, printed.high), abs=1e-12)
    below, above = failure_reaches(points, SCALE, printed_n := len(labels), printed.se, failed)
    assert below < unseen_reach(
        [(points[0] - SCALE[0], 0)], printed_n, printed.se, 1 - BETA
    )  # a's zeros show: less to reach


def fixed_allowance_width(found) -> float:
    """The width the package gave before: the t interval on the scale's logit, the far side's SE widened by a fixed
    allowance for failures on 0.25% of each task's units."""
    distance, share = found.point - SCALE[0], (found.point - SCALE[0]) / 400
    floor = 0.0025 * distance * math.sqrt(0.9975 ** (found.n / len(TASKS)))
    slope, q, centre = 1 / (share * (1 - share) * 400), quantile(0.95, found.df), math.log(share / (1 - share))
    low = SCALE[0] + 400 * expit(centre - q * math.hypot(found.se, floor) * slope)
    return SCALE[0] + 400 * expit(centre + q * found.se * slope) - low


@pytest.mark.parametrize("model", ["gpt4o_0806", "llama31_8b"])
def test_a_typical_sample_keeps_about_the_width_of_the_fixed_allowance(released_rows, model):  # noqa: F811
    _, tasks, scores, _ = released_rows[model]
    scored = np.isfinite(scores)
    scores, tasks = scores[scored], np.array(tasks)[scored]
    rng = np.random.default_rng(3)
    for per_task in (5, 10, 30):
        ratios = []
        for _ in range(30):
            picked = np.concatenate([rng.choice(np.flatnonzero(tasks == t), per_task) for t in TASKS])
            labels = list(tasks[picked])
            found = interval(overall(scores[picked], labels), Design.stratified(labels, by="task"), bounds=SCALE)
            ratios.append((found.high - found.low) / fixed_allowance_width(found))
        assert 0.97 < np.mean(ratios) < 1.03, (per_task, np.mean(ratios))
