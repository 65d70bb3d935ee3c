"""Figures at the ends of their scales, one test per defect of the validity review: a calibrated figure cut with its
interval, a one-sided Wilson bound at n of n, no interval (with its reason) where every label is the same or the
ratings do not vary, PPI++ naming the labels without spread and taking a t quantile at small n."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import ndtri, stdtrit

from longform_eval.metric.calibration import calibrate_overall, calibrate_win_rate, classical_mean, ppi_mean, win_value
from longform_eval.metric.calibration.simulation import simulate
from longform_eval.metric.pairwise import Battle, Outcome, bradley_terry
from longform_eval.metric.pairwise.agreement_intervals import annotator_agreement
from longform_eval.metric.pairwise.elo_intervals import elo_intervals
from longform_eval.metric.uncertainty import Design, intervals, mean
from longform_eval.metric.uncertainty.bounded import wilson_bounds

TWENTY_OF_TWENTY = wilson_bounds(20, 20)  # (0.839, 1): Wilson's bound at n of n


def near_the_top() -> tuple[dict[str, str], list[tuple[str, str]]]:
    """A model the judge favours on its 200 unlabelled items and undersells on the 30 labelled ones, which people
    almost all give it: PPI++'s estimate leaves the scale (1.06, its interval [1.016, 1.105])."""
    judge = {f"q{i}": "A" for i in range(200)}
    human = []
    for i in range(30):
        judge[f"h{i}"] = "A" if i % 3 else "B"
        human.append((f"h{i}", "A" if i else "equally_good"))
    return judge, human


def test_a_calibrated_win_rate_near_the_top_is_cut_to_the_scale_with_its_interval():
    """calibrate printed `ppi | 112.09 | [104.58, 100.00]`: the bounds were cut, not the estimate."""
    judge, human = near_the_top()
    ppi = calibrate_win_rate(judge, human).ppi
    assert ppi.estimate == 1.0
    assert ppi.low is None and ppi.high is None  # its whole interval lay above 1: no point "interval" at 1
    assert "lies wholly beyond the top of the scale (1)" in ppi.reason and "1.06 is cut to 1" in ppi.reason
    assert calibrate_win_rate(judge, human).to_dict()["ppi"]["reason"] == ppi.reason


def test_a_calibrated_overall_near_the_top_is_cut_to_the_scale_with_its_interval():
    """calibrate_overall gave `104.58 [101.84, 100.0]`."""
    rng = np.random.default_rng(155)
    judge = {f"r{i}": (f"t{i % 2}", float(rng.choice([100.0, 100.0, 100.0, 90.0]))) for i in range(100)}
    human = []
    for i in range(100, 120):
        judged = float(rng.choice([100.0, 60.0]))
        judge[f"r{i}"] = (f"t{i % 2}", judged)
        human.append((f"r{i}", 100.0 if judged == 100 or rng.random() < 0.85 else 95.0))
    found = calibrate_overall(judge, human)
    assert found.ppi.estimate == 100.0 and found.ppi.low is None and "beyond the top" in found.ppi.reason
    for estimate in (found.judge_only, found.human_only):
        assert -300 <= estimate.low <= estimate.estimate <= estimate.high <= 100


def test_a_win_rate_of_n_of_n_has_wilsons_one_sided_bound_as_agreement_has():
    """A 20-of-20 win rate had no interval while agreement on the same votes had Wilson's [0.839, 1]."""
    design = Design.simple(20, unit="vote")
    won, lost = (intervals({"w": mean(np.full(20, x))}, design, bounds={"w": (0.0, 1.0)})["w"] for x in (1.0, 0.0))
    assert (won.low, won.point, won.high) == pytest.approx((TWENTY_OF_TWENTY[0], 1.0, 1.0))
    assert (lost.low, lost.point, lost.high) == pytest.approx((0.0, 0.0, 1 - TWENTY_OF_TWENTY[0]))
    assert TWENTY_OF_TWENTY[0] == pytest.approx(0.839, abs=5e-4)
    human_only = classical_mean(np.ones(20), "human-only", scale=(0.0, 1.0))
    assert (human_only.low, human_only.high) == pytest.approx(TWENTY_OF_TWENTY) and human_only.reason is None
    assert intervals({"w": mean(np.full(20, 0.5))}, design, bounds={"w": (0.0, 1.0)})["w"] is None  # all ties


def test_human_human_agreement_with_every_label_the_same_has_no_interval_and_says_why():
    """30 identical pairs returned `(1.0, None)` and no reason."""
    same = {name: {f"q{i}": "A" for i in range(30)} for name in ("ann", "bob")}
    point, spread, why = annotator_agreement(same)
    assert point == 1.0 and spread is None and why == "every label is 'A': the annotators cannot disagree; no interval"
    varied = {name: {f"q{i}": "AB"[i % 2] for i in range(30)} for name in ("ann", "bob", "cy")}
    point, spread, why = annotator_agreement(varied)  # 30 of 30 items agree, three pairs each: Wilson's bound
    assert point == 1.0 and why is None and (spread.low, spread.high) == pytest.approx(wilson_bounds(30, 30))


def test_elo_has_no_interval_where_bradley_terry_has_none():
    """The Space showed Elo `1044 [1044, 1044]` when one model won all 25 battles; Bradley-Terry rightly none."""
    sweep = [Battle("x", "y", Outcome.A)] * 25
    spans, bt = elo_intervals(sweep), bradley_terry(sweep)
    assert bt.lower["x"] is None and spans.lower["x"] is None and spans.upper["x"] is None
    assert "never lost (or never won)" in spans.reasons["x"] and round(spans.ratings["x"]) == 1044
    ties = [Battle("x", "y", Outcome.EQUALLY_GOOD)] * 25  # every resample gives 1000: no point "interval" either
    for found in (elo_intervals(ties), bradley_terry(ties)):
        assert found.lower["x"] is None and "does not vary over resamples" in found.reasons["x"]


def test_ppi_names_the_labels_that_show_no_spread():
    """With only the human labels constant it said "neither the human labels nor the judge's show spread"."""
    found = ppi_mean([0.5] * 30, [0.0, 1.0] * 15, [1.0] * 10 + [0.0])
    assert found.low is None and "neither" not in found.reason
    assert found.reason.startswith("the human labels: all 30 labels are 0.5") and "lam is 0" in found.reason
    both = ppi_mean([1.0, 0.0] * 15, [1.0, 0.0] * 15, [1.0] * 11, lam=1.0)
    assert "the judge's other labels (all 1)" in both.reason and "the human labels less 1.00 x" in both.reason


def ppi_draw(seed: int, n_human: int = 25):
    sim = simulate(n_items=500 + n_human, n_human=n_human, seed=seed)
    human = [win_value(o) for o in sim.human.values()]
    judged = [win_value(sim.judge[i]) for i in sim.human]
    rest = [win_value(o) for i, o in sim.judge.items() if i not in sim.human]
    return ppi_mean(human, judged, rest), sim.truth


def test_ppi_takes_a_t_quantile_at_small_n():
    """Its normal quantile covered 92.4% at 25 human labels; Student's t at the labels' df widens it about 5%."""
    found, _ = ppi_draw(0)
    assert 24 <= found.df < 30  # Welch-Satterthwaite's over the human part (24 df) and the judge-only one (499)
    widening = (found.high - found.low) / (2 * float(ndtri(0.975)) * found.se)
    assert widening == pytest.approx(float(stdtrit(found.df, 0.975) / ndtri(0.975))) and 1.03 < widening < 1.06
    hits = {"t": 0, "normal": 0}
    for seed in range(1000):
        found, truth = ppi_draw(seed)
        half = float(ndtri(0.975)) * found.se
        hits["t"] += found.low <= truth <= found.high
        hits["normal"] += found.estimate - half <= truth <= found.estimate + half
    assert hits["t"] > hits["normal"] and hits["t"] / 1000 >= 0.93  # 93.8% over 4,000 draws (docs/pairwise.md)
