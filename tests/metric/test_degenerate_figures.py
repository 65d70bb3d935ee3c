"""No degenerate figure: bounded intervals stay on their scale, an undefined statistic says why it has none, and a
rating from too few battles is no rating (one test per case of the validity review)."""

from __future__ import annotations

import numpy as np
import pytest

from longform_eval.metric.calibration import calibrate_overall, calibrate_win_rate, classical_mean, ppi_mean
from longform_eval.metric.calibration.row_agreement import row_agreement
from longform_eval.metric.helloeval.weights import flat_weights, task_of_subcategory
from longform_eval.metric.pairwise import Battle, Outcome, bradley_terry, elo_ratings
from longform_eval.metric.pairwise.agreement import agreement, judge_agreement
from longform_eval.metric.pairwise.agreement_intervals import annotator_agreement, rate_interval
from longform_eval.metric.pairwise.elo_intervals import elo_intervals
from longform_eval.metric.pairwise.ratings import MIN_BATTLES
from longform_eval.metric.uncertainty import Design, intervals, mean
from longform_eval.metric.uncertainty.bounded import share_interval, wilson_bounds


def test_agreement_on_three_items_stays_in_zero_one():
    """`judge-agreement --limit 3` printed 0.333 [-1.101, 1.768]: a share's interval is Wilson's, inside [0, 1]."""
    found = agreement(["A", "B", "tie"], ["A", "tie", "B"], labels=3)
    spread = found.agreement_interval
    assert found.agreement == pytest.approx(1 / 3)
    assert 0 < spread.low < 1 / 3 < spread.high < 1
    assert (spread.low, spread.high) == pytest.approx(wilson_bounds(1, 3), abs=1e-12)


def test_wilson_keeps_a_width_where_every_unit_agrees():
    low, high = share_interval(np.ones(30)).low, share_interval(np.ones(30)).high
    assert high == pytest.approx(1.0) and 0.85 < low < 0.9  # 30 of 30: still uncertain, never a point


def test_kappa_on_twelve_items_stays_in_minus_one_one():
    """`--limit 12` printed a kappa interval [-0.083, 1.226]."""
    judged = ["A", "A", "B", "B", "tie", "A", "B", "A", "tie", "B", "A", "B"]
    human = ["A", "A", "B", "B", "tie", "A", "B", "A", "tie", "B", "A", "tie"]
    spread = agreement(human, judged, labels=3).kappa_interval
    assert -1 <= spread.low < spread.point < spread.high <= 1 and spread.clipped


def test_one_implementation_gives_calibrate_and_judge_agreement_the_same_figures():
    rng = np.random.default_rng(3)
    human = list(rng.choice(["A", "B", "equally_good", "equally_bad"], 80))
    judge = [h if rng.random() < 0.7 else "A" for h in human]
    shared = agreement(human, judge, labels=4, unit="label")
    calibrated = calibrate_win_rate(
        {f"q{i}": j for i, j in enumerate(judge)}, [(f"q{i}", h) for i, h in enumerate(human)]
    )
    judged = judge_agreement(dict(enumerate(map(Outcome, judge))), dict(enumerate(human)), labels=4)
    for other in (calibrated.agreement, judged):
        assert (other.agreement, other.cohen_kappa) == (shared.agreement, shared.cohen_kappa)
        assert (other.kappa_interval.low, other.kappa_interval.high) == (
            shared.kappa_interval.low,
            shared.kappa_interval.high,
        )


def half_marks(rows: int = 40) -> tuple[dict[str, tuple[str, float]], list[tuple[str, float]]]:
    """Real HelloBench rows (subcategory weights) whose every checklist a person marked 0.5: each row score is 50 but
    for float rounding; the judge's scores vary."""
    weights, task_of = flat_weights(), task_of_subcategory()
    subcategories = sorted(weights)[:rows]
    rng = np.random.default_rng(4)
    judge = {f"r{i}": (task_of[sub], float(rng.uniform(30, 90))) for i, sub in enumerate(subcategories)}
    human = [(f"r{i}", sum(0.5 * w for w in weights[sub])) for i, sub in enumerate(subcategories)]
    return judge, human


def test_every_checklist_label_one_half_gives_no_human_interval_and_says_why():
    """calibrate printed the human-only interval [-100.00, -100.00] (se 7.6e-15)."""
    judge, human = half_marks()
    assert np.ptp([score for _, score in human]) > 0  # float noise: not exactly 50 everywhere
    found = calibrate_overall(judge, human)
    human_only = found.human_only
    assert human_only.estimate == pytest.approx(-100.0) and human_only.low is None and human_only.high is None
    assert "labels are 50: no variance to estimate" in human_only.reason
    assert found.to_dict()["human_only"]["reason"] == human_only.reason


def test_pearson_r_on_constant_human_scores_is_undefined_with_its_reason():
    """calibrate's report printed "Pearson r 0.533 [-0.191, 1.000]" on constant human scores (float noise)."""
    judge, human = half_marks()
    found = row_agreement(judge, human)
    assert found["pearson_r"] is None and found["pearson_r_interval"] is None
    assert found["notes"]["pearson_r"] == "the human row scores do not vary: Pearson's r is undefined"


def test_a_zero_and_a_one_on_every_item_gives_no_interval_not_a_zero_width():
    """Two people per item, one saying A and one B: every item's labels average 0.5, the clustered variance is 0."""
    judge = {f"q{i}": "A" if i % 3 else "B" for i in range(60)}
    human = [(f"q{i}", outcome) for i in range(20) for outcome in ("A", "B")]
    found = calibrate_win_rate(judge, human)
    assert found.human_only.estimate == pytest.approx(0.5) and found.human_only.low is None
    assert "every item's labels average the same" in found.human_only.reason
    assert found.ppi.low is None and found.ppi.reason
    assert classical_mean([0.0, 1.0] * 20, "human-only", clusters=np.repeat(np.arange(20), 2)).low is None


def test_calibrated_win_rates_stay_in_zero_one():
    judge = {f"q{i}": "A" for i in range(40)} | {"q40": "B"}
    found = calibrate_win_rate(judge, [("q0", "A"), ("q1", "A"), ("q2", "A"), ("q40", "B")])
    for estimate in (found.judge_only, found.human_only, found.ppi):
        assert estimate.low is None or 0.0 <= estimate.low <= estimate.high <= 1.0
    assert ppi_mean([1.0, 0.0], [1.0, 0.0], [1.0, 1.0, 0.0]).low is not None  # a real spread keeps its interval


def test_float_noise_is_no_variance_for_the_package_intervals():
    judge, human = half_marks()
    scores = np.array([score for _, score in human])
    design = Design.simple(len(scores))
    assert intervals({"m": mean(scores)}, design)["m"] is None


def one_vote() -> list[Battle]:
    return [Battle("x", "y", Outcome.A)]


def test_bradley_terry_after_one_vote_has_no_rating_and_no_interval():
    """The Space showed 2549.7 and -549.7, each with a point "95% interval", after one vote."""
    bt = bradley_terry(one_vote())
    assert bt.ratings == {"x": None, "y": None} and bt.lower == {"x": None, "y": None}
    assert not bt.ranked("x") and "never lost" in bt.reasons["x"]


def test_bradley_terry_below_the_minimum_battles_is_unranked_without_an_interval():
    """The pairwise metric's BT lower bound reached -721 on 8 comparisons."""
    few = [Battle("gpt", "llama", Outcome.A)] * 6 + [Battle("gpt", "llama", Outcome.B)] * 2
    bt = bradley_terry(few, bootstrap=20)
    assert bt.ratings["gpt"] > bt.ratings["llama"] and bt.lower["gpt"] is None and bt.upper["llama"] is None
    assert bt.reasons["gpt"] == f"8 battles, fewer than {MIN_BATTLES}: not ranked"
    enough = few * 3
    ranked = bradley_terry(enough, bootstrap=20)
    assert ranked.ranked("gpt") and ranked.lower["gpt"] > 900 and ranked.upper["llama"] < 1100


def test_elo_has_a_bootstrap_interval_from_the_minimum_battles():
    rng = np.random.default_rng(2)
    battles = [Battle("x", "y", Outcome.A if rng.random() < 0.7 else Outcome.B) for _ in range(200)]
    battles += [Battle("y", "z", Outcome.A), Battle("y", "z", Outcome.B)] * 6  # z won and lost: a finite BT fit
    point, spans = elo_ratings(battles), elo_intervals(battles, bootstrap=200)
    assert spans.lower["x"] < point["x"] < spans.upper["x"] and spans.lower["y"] < point["y"] < spans.upper["y"]
    assert spans.lower["z"] is None and "12 battles" in spans.reasons["z"]
    assert elo_intervals(battles, bootstrap=200) == spans  # seeded


def test_human_human_agreement_has_an_interval_over_items():
    rng = np.random.default_rng(5)
    truth = {f"q{i}": rng.choice(["A", "B"]) for i in range(60)}
    labels = {name: {q: t if rng.random() < 0.85 else "tie" for q, t in truth.items()} for name in ("a", "b", "c")}
    point, spread, why = annotator_agreement(labels)
    assert 0.5 < point < 1 and 0 <= spread.low < point < spread.high <= 1 and spread.n == 60 and why is None
    assert annotator_agreement({"a": {"q1": "A"}, "b": {"q2": "B"}}) == (None, None, "no item has two annotators")


def test_a_rate_without_spread_keeps_no_interval_and_a_zero_one_share_keeps_wilsons():
    assert rate_interval(np.full(10, 1.0), np.full(10, 2.0)) is None  # one of two on every item: no spread
    flips = rate_interval(np.zeros(60), np.ones(60))
    assert flips.low == 0.0 < flips.high < 0.1
