from __future__ import annotations

import json

import numpy as np
import pytest

from longform_eval.dataset_builder import SourceError
from longform_eval.dataset_builder.hellobench_weights import load_weights
from longform_eval.inference.cli import main
from longform_eval.metric.helloeval.fitting import LEVELS, Annotation, fit_weights, read_annotations


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


def annotation(sub="news", scores=(1, 0.5, 0, 1, 0.25, 0.75), overall=6.0):
    record = {"row_id": "r", "subcategory": sub, "checklist_scores": list(scores), "overall_score": overall}
    return {**record, "annotator": "a"}


def run_cli(tmp_path, lines, capsys):
    """Run `fit-weights` on a file of `lines`; return the exit code, stderr and whether any output was written."""
    path = tmp_path / "ann.jsonl"
    path.write_text("".join(line + "\n" for line in lines))
    out, report = tmp_path / "w.txt", tmp_path / "r.json"
    code = main(["fit-weights", str(path), "--out", str(out), "--report", str(report)])
    return code, capsys.readouterr().err, out.exists() or report.exists()


@pytest.mark.parametrize("lines", [[], [""], ["", "   "]])
def test_cli_refuses_an_empty_annotation_file(tmp_path, capsys, lines):
    code, err, wrote = run_cli(tmp_path, lines, capsys)
    assert code != 0 and not wrote
    assert f"{tmp_path / 'ann.jsonl'}: " in err and "empty" in err


def test_cli_refuses_a_single_annotation(tmp_path, capsys):
    code, err, wrote = run_cli(tmp_path, [json.dumps(annotation())], capsys)
    assert code != 0 and not wrote
    assert f"{tmp_path / 'ann.jsonl'}: cannot fit weights for 'news': 1 annotation, needs at least 7" in err


def test_cli_lists_every_subcategory_with_too_few_annotations(tmp_path, capsys):
    rng = np.random.default_rng(0)
    lines = [json.dumps(annotation(scores=rng.choice(LEVELS, 6).tolist(), overall=float(i))) for i in range(7)]
    lines += [json.dumps(annotation("story_writing", scores=[1] * 5, overall=float(i))) for i in range(5)]
    lines += [json.dumps(annotation("blogs", overall=float(i))) for i in range(3)]
    code, err, wrote = run_cli(tmp_path, lines, capsys)
    assert code != 0 and not wrote
    assert "'blogs': 3 annotations, needs at least 7 (6 checklists + 1)" in err
    assert "'story_writing': 5 annotations, needs at least 6 (5 checklists + 1)" in err
    assert "'news'" not in err


def test_fit_refuses_undefined_r2_and_no_annotations():
    one = [Annotation("r", "news", (1.0,) * 6, 6.0, "a")]
    with pytest.raises(ValueError, match=r"'news': 1 annotation whose overall scores are all 6: R\^2 is undefined"):
        fit_weights(one)
    same = [Annotation(f"r{i}", "news", (1.0, 0.5, 0.0, 1.0, 0.25, float(i % 2)), 6.0, "a") for i in range(20)]
    with pytest.raises(ValueError, match="R\\^2 is undefined"):
        fit_weights(same)
    with pytest.raises(ValueError, match="no annotations to fit"):
        fit_weights([])


@pytest.mark.parametrize(
    "bad_line,where",
    [
        ('{"row_id": "x", ', "ann.jsonl:2: invalid JSON"),
        (json.dumps({**annotation(), "overall_score": None}), "ann.jsonl:2: field 'overall_score'"),
        (json.dumps({k: v for k, v in annotation().items() if k != "row_id"}), "ann.jsonl:2: field 'row_id': missing"),
        (json.dumps(annotation(scores=[1, 0.5, 0.3, 1, 1, 1])), "ann.jsonl:2: field 'checklist_scores'"),
        (json.dumps(annotation(scores=[1, 0.5, True, 1, 1, 1])), "ann.jsonl:2: field 'checklist_scores'"),
        (json.dumps(annotation(overall=float("nan"))), "ann.jsonl:2: field 'overall_score'"),
        (json.dumps(annotation(scores=[1] * 5)), "ann.jsonl:2: field 'checklist_scores': 5 scores, but 'news' had 6"),
    ],
)
def test_cli_names_file_line_and_field_of_a_bad_line(tmp_path, capsys, bad_line, where):
    code, err, wrote = run_cli(tmp_path, [json.dumps(annotation()), bad_line], capsys)
    assert code != 0 and not wrote
    assert where in err


def fit_cli(capsys, annotations, out, report) -> tuple[int, str]:
    code = main(["fit-weights", str(annotations), "--out", str(out), "--report", str(report)])
    return code, capsys.readouterr().err


def test_cli_overwrites_its_own_outputs(tmp_path, capsys):
    annotations = synthetic_annotations(tmp_path / "a.jsonl", {"news": [10, 15, 20, 25, 12, 18]}, n=60)
    out, report = tmp_path / "w.txt", tmp_path / "r.json"
    assert fit_cli(capsys, annotations, out, report) == (0, "")
    assert out.read_text().startswith("# longform-eval fit-weights")
    out.write_text(out.read_text().replace("REGRESSION_DICT", "OLD_DICT"))
    report.write_text(json.dumps({"news": {"n": 1, "r2": 0.0, "mse": 0.0, "weights": [100]}}))
    assert fit_cli(capsys, annotations, out, report) == (0, "")
    assert "REGRESSION_DICT" in out.read_text() and json.loads(report.read_text())["news"]["n"] == 60


def not_ours(shared_data, tmp_path):
    """Files fit-weights did not write, and why it may not overwrite them."""
    released = tmp_path / "weighted_scores.txt"
    released.write_bytes((shared_data / "hellobench" / "weighted_scores.txt").read_bytes())
    (tmp_path / "folder").mkdir()
    return {
        "released-weights": ("--out", released, "was not written by this command (the weights files it writes"),
        "notes": ("--out", tmp_path / "notes.txt", "was not written by this command"),
        "folder": ("--out", tmp_path / "folder", "is not a regular file"),
        "other-json": ("--report", tmp_path / "config.json", "was not written by this command (the reports it"),
    }


@pytest.mark.parametrize("case", ["released-weights", "notes", "folder", "other-json"])
def test_cli_refuses_to_overwrite_a_file_it_did_not_write(shared_data, tmp_path, capsys, case):
    annotations = synthetic_annotations(tmp_path / "a.jsonl", {"news": [10, 15, 20, 25, 12, 18]}, n=60)
    (tmp_path / "notes.txt").write_text("my notes\n")
    (tmp_path / "config.json").write_text('{"news": {"n": 3}}\n')
    option, path, reason = not_ours(shared_data, tmp_path)[case]
    others = {"--out": tmp_path / "w.txt", "--report": tmp_path / "r.json"}
    paths = others | {option: path}
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()}
    code, err = fit_cli(capsys, annotations, paths["--out"], paths["--report"])
    assert code == 2 and "Traceback" not in err and err.count("\n") == 1
    assert f"error: {option} {path}: refusing to overwrite it: it exists and {reason}" in err
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()} == before
    assert not others["--out"].exists() and not others["--report"].exists()
