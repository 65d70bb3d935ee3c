"""PPI++ (`metric.calibration`) against the authors' package (ppi-python), clustered units, strata and agreement."""

from __future__ import annotations

import numpy as np
import ppi_py
import pytest
from scipy.special import ndtri, stdtrit

from longform_eval.metric.calibration import (
    Estimate,
    calibrate_overall,
    calibrate_win_rate,
    classical_mean,
    combined,
    ppi_mean,
)
from longform_eval.metric.calibration.ppi import mean_variance
from longform_eval.metric.calibration.simulation import TRUE_WIN_RATE, simulate
from longform_eval.metric.pairwise.agreement import agreement


def t_over_z(df: float, level: float = 0.95) -> float:
    """How much wider our t quantile is than ppi-python's normal one."""
    tail = (1 + level) / 2
    return float(stdtrit(df, tail) / ndtri(tail))


def iid_sample(seed: int, n: int = 300, big_n: int = 3000) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Human labels with a judge that is informative and biased (+0.3)."""
    rng = np.random.default_rng(seed)
    truth = rng.normal(size=n + big_n)
    judge = 0.8 * truth + 0.3 + rng.normal(scale=0.5, size=n + big_n)
    return truth[:n], judge[:n], judge[n:]


@pytest.mark.parametrize("lam", [0.0, 0.3, 1.0])
def test_with_a_given_lam_the_estimate_and_interval_are_ppi_pythons(lam):
    y, f, rest = iid_sample(1)
    ours = ppi_mean(y, f, rest, level=0.95, lam=lam)
    theirs = float(ppi_py.ppi_mean_pointestimate(y, f, rest, lam=lam)[0])
    low, high = ppi_py.ppi_mean_ci(y, f, rest, alpha=0.05, lam=lam)
    assert ours.estimate == pytest.approx(theirs, rel=1e-12)
    # ppi-python's standard deviations divide by n, ours by n - 1, and its quantile is the normal one, ours Student's t
    # at the labels' Welch-Satterthwaite df: the widths differ by at most those factors
    ratio = (ours.high - ours.low) / float(high[0] - low[0])
    assert 1.0 - 1 / len(y) <= ratio / t_over_z(ours.df) <= 1.0 + 1 / len(y)
    assert ours.low == pytest.approx(float(low[0]), abs=0.01) and ours.high == pytest.approx(float(high[0]), abs=0.01)


@pytest.mark.parametrize("seed", [2, 3, 4])
def test_the_tuned_lam_gives_ppi_pythons_tuned_interval(seed):
    y, f, rest = iid_sample(seed)
    ours = ppi_mean(y, f, rest, level=0.9)
    theirs = float(ppi_py.ppi_mean_pointestimate(y, f, rest)[0])
    low, high = ppi_py.ppi_mean_ci(y, f, rest, alpha=0.1)
    width = float(high[0] - low[0])
    assert 0 < ours.lam < 1
    assert ours.estimate == pytest.approx(theirs, rel=1e-9)  # the same lam
    # the same interval but for ppi-python's standard deviations over n where ours are over n - 1, and its normal
    # quantile where ours is Student's t (at 300 labels 0.4% wider at 90%)
    centre = (ours.low + ours.high) / 2
    assert centre == pytest.approx(float(low[0] + high[0]) / 2, abs=1e-9)
    assert (ours.high - ours.low) / t_over_z(ours.df, 0.9) == pytest.approx(width, rel=0.005)


def test_an_uninformative_judge_gets_lam_near_zero_and_the_human_interval():
    rng = np.random.default_rng(5)
    y, f, rest = rng.normal(size=200), rng.normal(size=200), rng.normal(size=2000)
    found, human = ppi_mean(y, f, rest), classical_mean(y, "human-only")
    assert found.lam < 0.2
    assert found.high - found.low == pytest.approx(human.high - human.low, rel=0.05)


def test_clusters_of_one_label_each_give_the_iid_variance():
    values = np.random.default_rng(6).normal(size=50)
    assert mean_variance(values, clusters=np.arange(50)) == pytest.approx(mean_variance(values), rel=1e-12)


def test_labels_repeated_within_an_item_count_once_with_clusters():
    """Each item's label copied 4 times: the iid formula believes 4x the data; the clustered one does not."""
    items = np.random.default_rng(7).normal(size=80)
    copies, clusters = np.repeat(items, 4), np.repeat(np.arange(80), 4)
    item_se = classical_mean(items, "human-only").se
    assert classical_mean(copies, "human-only", clusters=clusters).se == pytest.approx(item_se, rel=0.02)
    assert classical_mean(copies, "human-only").se == pytest.approx(item_se / 2, rel=0.05)


def test_clustered_ppi_covers_the_truth_where_the_iid_interval_does_not():
    """Items with 5 correlated labels each: the clustered interval keeps ~95% coverage, the iid one falls short."""
    covered = {"clustered": 0, "iid": 0}
    rng = np.random.default_rng(8)
    for _ in range(400):
        effects = rng.normal(size=240)  # 40 labelled items, 200 judged only; truth: mean 0
        labels = np.repeat(effects[:40], 5) + rng.normal(scale=0.3, size=200)
        judged = np.repeat(effects[:40], 5) + 0.5 + rng.normal(scale=0.3, size=200)
        rest = effects[40:] + 0.5 + rng.normal(scale=0.3, size=200)
        clusters = np.repeat(np.arange(40), 5)
        for name, kwargs in (("clustered", {"clusters": clusters}), ("iid", {})):
            found = ppi_mean(labels, judged, rest, **kwargs)
            covered[name] += found.low <= 0 <= found.high
    assert 0.91 <= covered["clustered"] / 400 <= 0.99
    assert covered["iid"] / 400 < 0.8


def test_the_simulated_judge_is_biased_and_ppi_covers_the_truth_about_95_percent():
    hits = {"ppi": 0, "judge": 0}
    for seed in range(200):
        sim = simulate(n_items=600, n_human=100, seed=seed)
        found = calibrate_win_rate(sim.judge, list(sim.human.items()))
        hits["ppi"] += found.ppi.low <= TRUE_WIN_RATE <= found.ppi.high
        hits["judge"] += found.judge_only.low <= TRUE_WIN_RATE <= found.judge_only.high
    assert 0.91 <= hits["ppi"] / 200 <= 0.99
    assert hits["judge"] / 200 < 0.3


def test_a_stratified_figure_adds_the_strata_variances():
    parts = [Estimate("ppi++", m, m - 1, m + 1, se, 10, 100) for m, se in ((60.0, 2.0), (80.0, 1.0))]
    found = combined(parts, "ppi++", 0.95, scale=4, offset=-300)
    assert found.estimate == pytest.approx(4 * 70 - 300)
    assert found.se == pytest.approx(4 * np.sqrt(4 + 1) / 2)
    assert (found.n_human, found.n_judge) == (20, 200)


def test_helloeval_falls_back_to_pooled_rows_when_a_task_has_too_few_annotations():
    judge = {f"r{i}": ("chat" if i < 10 else "summarization", 60.0 + i) for i in range(20)}
    human = [(f"r{i}", 50.0 + i) for i in (0, 1, 2, 10)]  # summarization: one annotated row
    found = calibrate_overall(judge, human)
    assert "pooled over rows" in found.notes[0] and "task summarization has 1 of 10 rows annotated" in found.notes[0]
    assert found.ppi is not None and found.ppi.estimate < found.judge_only.estimate


def test_too_few_labels_leave_the_figure_absent_not_a_crash():
    found = calibrate_win_rate({"q1": "A", "q2": "B", "q3": "A"}, [("q1", "B")])
    assert found.ppi is None and found.human_only is None and "at least 2" in found.absent
    assert found.judge_only.estimate == pytest.approx(2 / 3)


def test_agreement_intervals_hold_the_figures():
    sim = simulate(n_items=400, n_human=150, seed=9)
    human = list(sim.human.values())
    judge = [sim.judge[item] for item in sim.human]
    found = agreement(human, judge, labels=4, seed=1)
    assert found.agreement_interval.contains(found.agreement) and found.kappa_interval.contains(found.cohen_kappa)
    assert agreement(["A"] * 5, ["A"] * 5, labels=4).kappa_interval is None


def test_kappa_is_sklearns():
    from sklearn.metrics import cohen_kappa_score

    sim = simulate(n_items=300, n_human=120, seed=10)
    human, judge = list(sim.human.values()), [sim.judge[item] for item in sim.human]
    assert agreement(human, judge, labels=4).cohen_kappa == pytest.approx(cohen_kappa_score(human, judge), rel=1e-12)
