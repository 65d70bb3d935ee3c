from __future__ import annotations

import json

import numpy as np
import pytest

from longform_eval.dataset_builder import SourceError
from longform_eval.dataset_builder.hellobench_weights import load_weights
from longform_eval.inference.cli import main
from longform_eval.metric.helloeval.fitting import LEVELS, fit_weights, read_annotations


def synthetic_annotations(path, true_weights, n=400, noise=0.3, seed=0):
    """Annotations whose overall score is X @ raw weights + noise, raw weights summing to 10."""
    rng = np.random.default_rng(seed)
    lines = []
    for sub, weights in true_weights.items():
        raw = np.asarray(weights) / 10.0
        for i in range(n):
            x = rng.choice(LEVELS, size=len(weights))
            y = float(np.clip(x @ raw + rng.normal(0, noise), 0, 10))
            lines.append(
                {
                    "row_id": f"{sub}_{i}",
                    "subcategory": sub,
                    "checklist_scores": x.tolist(),
                    "overall_score": y,
                    "annotator": f"ann{i % 5}",
                }
            )
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    return path


def test_fit_recovers_known_weights(tmp_path):
    truth = {"news": [10, 15, 20, 25, 12, 18], "story_writing": [30, 10, 20, 25, 15]}
    fits = fit_weights(read_annotations(synthetic_annotations(tmp_path / "a.jsonl", truth)))
    for sub, weights in truth.items():
        assert sum(fits[sub].weights) == pytest.approx(100)
        assert fits[sub].weights == pytest.approx(weights, abs=1.5)
        assert fits[sub].r2 > 0.8 and fits[sub].mse < 0.2 and fits[sub].n == 400


def test_fit_respects_the_lower_bound(tmp_path):
    truth = {"news": [40, 0, 30, 30, 0, 0]}  # raw weights 0 fall under the 0.5 bound
    fit = fit_weights(read_annotations(synthetic_annotations(tmp_path / "a.jsonl", truth, noise=0.05)))["news"]
    assert min(fit.raw_weights) >= 0.5 - 1e-9
    assert fit.raw_weights[1] == pytest.approx(0.5, abs=1e-6)


def test_cli_writes_weights_the_builder_can_read(tmp_path):
    truth = {"news": [10, 15, 20, 25, 12, 18]}
    annotations = synthetic_annotations(tmp_path / "a.jsonl", truth, n=60)
    out, report = tmp_path / "w.txt", tmp_path / "r.json"
    assert main(["fit-weights", str(annotations), "--out", str(out), "--report", str(report)]) == 0
    weights = load_weights(out)
    assert sum(weights["news"]) == pytest.approx(100)
    assert json.loads(report.read_text())["news"]["n"] == 60


@pytest.mark.parametrize(
    "record,message",
    [
        ({"subcategory": "news", "checklist_scores": [1], "overall_score": 5, "annotator": "a"}, "field 'row_id'"),
        (
            {"row_id": "x", "subcategory": "news", "checklist_scores": [0.3], "overall_score": 5, "annotator": "a"},
            "field 'checklist_scores'",
        ),
        (
            {"row_id": "x", "subcategory": "news", "checklist_scores": [1], "overall_score": 11, "annotator": "a"},
            "field 'overall_score'",
        ),
    ],
)
def test_bad_annotations_name_line_and_field(tmp_path, record, message):
    good = {"row_id": "y", "subcategory": "news", "checklist_scores": [1], "overall_score": 5, "annotator": "a"}
    path = tmp_path / "a.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps(record) + "\n")
    with pytest.raises(SourceError, match=rf"a\.jsonl:2: {message}"):
        read_annotations(path)
