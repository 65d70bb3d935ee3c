"""Spread at float-noise level counts as none in a power plan's simulation (issue 47.2), as it does in the interval
`report` prints (`variance.only_float_noise`): no plan where the difference is constant."""

from __future__ import annotations

import numpy as np
import pytest

from longform_eval.metric.uncertainty import Design, paired_difference, stratified_mean
from longform_eval.metric.uncertainty.power_simulation import PairedReference, simulated_power

SCALE = (0.0, 10.0)


def constant_but_three(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """A model 0.3 above another on every prompt (equal but for float rounding) but three, where it scored 0."""
    b = np.round(rng.uniform(5, 9, n), 1)
    a = b + 0.3
    a[[5, 70, 140]] = 0.0
    return a, b


def test_float_noise_spread_counts_as_none_in_the_simulation():
    """A pair that differs by a constant except on 3 prompts of 200: a planned run drawing none of the 3 gets no
    interval from `report` (its spread is float noise), so the plan's power at a size is what real runs detect there,
    not the share of float-noise intervals excluding 0 (86% stated at 74 prompts before, 8.5% detected)."""
    rng = np.random.default_rng(7)
    labels = ["x"] * 100 + ["y"] * 100
    design = Design.stratified(labels)
    a, b = constant_but_three(rng, 200)
    fa, fb = stratified_mean(a, labels), stratified_mean(b, labels)
    reference = PairedReference.of_pair(fa, fb, design, SCALE)
    # at the reference's own difference, a simulated run is a resample of its prompts
    stated = simulated_power(reference, 74, fa.point() - fb.point(), 0.95, 400, seed=1)
    # real runs of 74 prompts (37 per task) drawn from the same prompts, each with the interval the report prints
    detected, draws = 0, 400
    tasks = ["x"] * 37 + ["y"] * 37
    planned = Design.stratified(tasks)
    for _ in range(draws):
        rows = np.concatenate([rng.integers(0, 100, 37), 100 + rng.integers(0, 100, 37)])
        shown = paired_difference(
            stratified_mean(a[rows], tasks), stratified_mean(b[rows], tasks), planned, scale=SCALE
        )
        detected += shown is not None and shown.low > 0
    assert detected / draws < 0.3 and stated == pytest.approx(detected / draws, abs=0.1)


def test_no_plan_where_the_difference_is_constant_but_for_float_noise():
    rng = np.random.default_rng(8)
    labels = ["x"] * 50 + ["y"] * 50
    a = np.round(rng.uniform(5, 9, 100), 1)
    fa, fb = stratified_mean(a, labels), stratified_mean(a - 0.3, labels)
    with pytest.raises(ValueError, match="float noise"):
        PairedReference.of_pair(fa, fb, Design.stratified(labels), SCALE)
