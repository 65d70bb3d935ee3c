"""Power plans simulate the interval `report` prints for a paired difference (issue 47.2): the allowance for an
unseen failure included, spread at float-noise level counted as none."""

from __future__ import annotations

import numpy as np
import pytest

from longform_eval.metric.uncertainty import Design, paired_difference, stratified_mean
from longform_eval.metric.uncertainty.comparison import difference_figure
from longform_eval.metric.uncertainty.power_simulation import (
    PairedReference,
    planned_interval,
    simulated_plan,
    simulated_power,
)
from longform_eval.metric.uncertainty.variance import linearized

SCALE = (0.0, 10.0)


def near_top_pair(rng: np.random.Generator, labels: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Two models near the top of a 0..10 scale, the first 0.1 above the second, on the same prompts."""
    b = np.clip(9.6 + rng.normal(0, 0.3, len(labels)), 0, 10)
    a = np.clip(b + 0.1 + rng.normal(0, 0.3, len(labels)), 0, 10)
    return a, b


def test_the_simulated_interval_is_the_one_report_prints_allowance_included():
    """On a near-top pair at 8 prompts per task (where the allowance for an unseen failure is wide), the interval a
    planned run is given equals `paired_difference(..., scale=)`'s to the last digit, not the plain t interval."""
    rng = np.random.default_rng(3)
    labels = [task for task in ("a", "b", "c") for _ in range(8)]
    design = Design.stratified(labels)
    for _ in range(5):
        a, b = near_top_pair(rng, labels)
        fa, fb = stratified_mean(a, labels), stratified_mean(b, labels)
        printed = paired_difference(fa, fb, design, scale=SCALE)
        points = (float(fa.point()), float(fb.point()))
        z = linearized(difference_figure(fa, fb))
        simulated = planned_interval(points[0] - points[1], points, z, design, 0.95, SCALE)
        assert (simulated.low, simulated.high) == pytest.approx((printed.low, printed.high), abs=1e-12)
        plain = planned_interval(points[0] - points[1], points, z, design, 0.95, None)
        assert plain.high - plain.low < printed.high - printed.low  # the allowance widens it


def test_a_near_top_plan_counts_the_allowance_the_report_adds():
    """The plan's power at a size is the share of the report's intervals (allowance included) that exclude 0: lower
    than the plain t's near the top at few prompts per task, and the plan grows to keep its 80%."""
    rng = np.random.default_rng(4)
    labels = [task for task in ("a", "b", "c", "d", "e") for _ in range(60)]
    design = Design.stratified(labels)
    a, b = near_top_pair(rng, labels)
    fa, fb = stratified_mean(a, labels), stratified_mean(b, labels)
    reported = PairedReference.of_pair(fa, fb, design, SCALE)
    plain = PairedReference.of_pair(fa, fb, design, None)
    assert reported.scale == SCALE and reported.points == pytest.approx((fa.point(), fb.point()))
    at_plain = simulated_plan(plain, 0.1, simulations=300)
    assert simulated_power(reported, at_plain.prompts, 0.1, 0.95, 600, seed=5) < simulated_power(
        plain, at_plain.prompts, 0.1, 0.95, 600, seed=5
    )
    planned = simulated_plan(reported, 0.1, simulations=300)
    assert planned.prompts > at_plain.prompts and "allowance for an unseen failure" in planned.assumptions
    assert simulated_power(reported, planned.prompts, 0.1, 0.95, 600, seed=9) >= 0.78
