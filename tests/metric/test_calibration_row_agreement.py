"""Judge vs human row scores (HelloBench checklists): Pearson's r and the mean difference with their intervals."""

import numpy as np
import pytest

from longform_eval.metric.calibration import calibrate_overall
from longform_eval.metric.calibration.row_agreement import row_agreement, weighted_r

TASKS = ("chat", "summarization", "qa")


def fixed_rows(n: int = 36, labelled: int = 18) -> tuple[dict[str, tuple[str, float]], list[tuple[str, float]]]:
    """A lenient judge: its row score is the human's plus about 6, with noise; the first `labelled` rows annotated."""
    rng = np.random.default_rng(11)
    human_scores = rng.uniform(40, 90, size=n)
    judged = np.clip(human_scores + 6 + rng.normal(0, 5, size=n), 0, 100)
    judge = {f"r{i}": (TASKS[i % 3], float(judged[i])) for i in range(n)}
    return judge, [(f"r{i}", float(human_scores[i])) for i in range(labelled)]


def test_both_figures_get_ordered_intervals_holding_the_point():
    judge, human = fixed_rows()
    found = row_agreement(judge, human)
    h = np.array([s for _, s in human])
    j = np.array([judge[row][1] for row, _ in human])
    assert found["mean_difference"] == pytest.approx(float(np.mean(j - h)), abs=1e-12)
    assert found["pearson_r"] == pytest.approx(float(np.corrcoef(h, j)[0, 1]), abs=1e-12)
    for name in ("pearson_r", "mean_difference"):
        low, high = found[f"{name}_interval"]
        assert low < found[name] < high
    assert found["pearson_r_interval"][0] >= -1 and found["pearson_r_interval"][1] <= 1
    assert found["mean_difference_interval"][0] > 0  # the judge's leniency (+6) is told apart from none


def test_the_intervals_are_seeded():
    judge, human = fixed_rows()
    assert row_agreement(judge, human, seed=3) == row_agreement(judge, human, seed=3)
    assert (
        row_agreement(judge, human, seed=3)["pearson_r_interval"] != row_agreement(judge, human)["pearson_r_interval"]
    )


def test_rows_annotated_twice_are_clustered_and_do_not_narrow_the_intervals():
    judge, human = fixed_rows()
    once, twice = row_agreement(judge, human), row_agreement(judge, human + human)
    assert twice["mean_difference"] == pytest.approx(once["mean_difference"], abs=1e-12)
    for name in ("pearson_r_interval", "mean_difference_interval"):
        width_once, width_twice = np.diff(once[name])[0], np.diff(twice[name])[0]
        assert width_twice == pytest.approx(width_once, rel=0.25)  # iid on copies would be ~1/sqrt(2) as wide


def test_weighted_r_counts_each_pair_its_weight():
    x, y = np.array([1.0, 2.0, 3.0, 5.0]), np.array([2.0, 1.0, 4.0, 4.0])
    weights = np.array([2.0, 1.0, 0.0, 3.0])
    expanded = np.corrcoef(np.repeat(x, [2, 1, 0, 3]), np.repeat(y, [2, 1, 0, 3]))[0, 1]
    assert weighted_r(x, y, weights) == pytest.approx(expanded, abs=1e-12)
    assert np.isnan(weighted_r(x, y, np.array([0.0, 0.0, 0.0, 1.0])))


def test_undefined_figures_have_no_interval():
    judge, human = fixed_rows()
    one = row_agreement(judge, human[:1])
    assert all(value is None for name, value in one.items() if name != "notes")
    assert one["notes"]["pearson_r"] == "1 annotation: no interval"
    flat = {row: (task, 50.0) for row, (task, _) in judge.items()}
    found = row_agreement(flat, human)
    assert found["pearson_r"] is None and found["pearson_r_interval"] is None
    assert found["notes"]["pearson_r"] == "the judge row scores do not vary: Pearson's r is undefined"
    assert found["mean_difference_interval"] is not None


def test_calibrated_entry_keeps_the_values_and_adds_the_intervals():
    judge, human = fixed_rows()
    entry = calibrate_overall(judge, human).to_dict()["row_agreement"]
    assert entry == row_agreement(judge, human)
    assert {"pearson_r", "mean_difference", "pearson_r_interval", "mean_difference_interval"} <= set(entry)
