"""The report prints the judge-human row agreement of a HelloBench calibration with its intervals."""

import json
import re

import numpy as np

from longform_eval.inference.report.calibration_view import CALIBRATED_FILE, calibration_lines
from longform_eval.metric.calibration import calibrate_overall


def fixed_rows() -> tuple[dict[str, tuple[str, float]], list[tuple[str, float]]]:
    """36 rows over 3 tasks, the judge the human plus about 6; the first 18 rows annotated."""
    rng = np.random.default_rng(11)
    human = rng.uniform(40, 90, size=36)
    judged = np.clip(human + 6 + rng.normal(0, 5, size=36), 0, 100)
    judge = {f"r{i}": (("chat", "summarization", "qa")[i % 3], float(judged[i])) for i in range(36)}
    return judge, [(f"r{i}", float(human[i])) for i in range(18)]


def test_report_line_shows_r_and_the_mean_difference_with_intervals(tmp_path):
    judge, human = fixed_rows()
    figure = calibrate_overall(judge, human)
    document = {
        "human_source": "fixed",
        "level": 0.95,
        "figures": {"overall": figure.to_dict() | {"scale": "-300..100"}},
    }
    (tmp_path / CALIBRATED_FILE).write_text(json.dumps(document, allow_nan=False), encoding="utf-8")
    line = next(line for line in calibration_lines(tmp_path) if line.startswith("Judge vs human row scores"))
    rows = figure.extra["row_agreement"]
    low, high = rows["pearson_r_interval"]
    assert f"Pearson r {rows['pearson_r']:.3f} [{low:.3f}, {high:.3f}]" in line
    low, high = rows["mean_difference_interval"]
    assert f"mean judge - human {rows['mean_difference']:+.2f} [{low:.2f}, {high:.2f}]" in line
    assert re.search(
        r"r 0\.\d{3} \[0\.\d{3}, [01]\.\d{3}\], mean judge - human \+\d+\.\d\d \[\d+\.\d\d, \d+\.\d\d\]", line
    )


def test_an_older_calibrated_json_without_intervals_still_prints(tmp_path):
    figure = {"n_human": 5, "row_agreement": {"pearson_r": 0.5, "mean_difference": 1.0}, "judge_only": None}
    document = {"level": 0.95, "figures": {"overall": figure}}
    (tmp_path / CALIBRATED_FILE).write_text(json.dumps(document), encoding="utf-8")
    assert any("Pearson r 0.500, mean judge - human +1.00." in line for line in calibration_lines(tmp_path))
