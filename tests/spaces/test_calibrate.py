"""`longform-eval calibrate`: a biased judge corrected by 100 human labels (PPI++), and every way labels come in."""

from __future__ import annotations

import json
import time

import pytest
from scores_documents import HELLOBENCH_FIGURES, scores_with

from longform_eval.inference.cli import main as cli_main
from longform_eval.metric.calibration.simulation import TRUE_WIN_RATE, simulate
from longform_eval.metric.helloeval.weights import flat_weights, task_of_subcategory
from longform_eval.spaces.records import Vote
from longform_eval.spaces.storage import VoteStore

from .calibrate_support import BASELINE, MODEL, hellobench_run, pairwise_run, vote_lines, write_jsonl

SEED = 7


@pytest.fixture(scope="module")
def simulated():
    return simulate(n_items=2000, n_human=100, seed=SEED)


@pytest.fixture
def biased_run(tmp_path, simulated):
    return pairwise_run(tmp_path / "run", simulated.judge)


def test_calibrated_interval_covers_the_human_truth_where_the_judge_alone_does_not(
    tmp_path, biased_run, simulated, capsys
):
    labels = write_jsonl(tmp_path / "human.jsonl", vote_lines(simulated.human))
    assert cli_main(["calibrate", str(biased_run), "--human", str(labels), "--seed", "3"]) == 0
    figure = json.loads((biased_run / "calibrated.json").read_text())["figures"]["win_rate"]
    judge, human, ppi = figure["judge_only"], figure["human_only"], figure["ppi"]
    assert not judge["low"] <= TRUE_WIN_RATE <= judge["high"]  # the judge's bias: its interval misses the truth
    assert ppi["low"] <= TRUE_WIN_RATE <= ppi["high"]
    assert human["low"] <= TRUE_WIN_RATE <= human["high"]
    assert ppi["high"] - ppi["low"] < human["high"] - human["low"]  # the judge's labels help
    assert (ppi["n_human"], ppi["n_judge"], judge["n_judge"]) == (100, 2000, 2000)
    assert 0 < ppi["lam"] < 1
    assert figure["agreement"]["n"] == 100 and 0 < figure["agreement"]["cohen_kappa"] < 1
    assert figure["agreement"]["label_set"] == "4 labels: A, B, equally_good, equally_bad"
    out = capsys.readouterr().out
    assert "calibrated (PPI++)" in out and "judge only" in out and "Cohen's kappa" in out
    assert "matched labels (4 labels: A, B, equally_good, equally_bad)" in out


def test_a_label_shown_the_other_way_round_counts_the_same(tmp_path, biased_run, simulated):
    straight = write_jsonl(tmp_path / "straight.jsonl", vote_lines(simulated.human, swap_every=10**9))
    turned = write_jsonl(tmp_path / "turned.jsonl", vote_lines(simulated.human, swap_every=1))
    found = []
    for labels in (straight, turned):
        assert cli_main(["calibrate", str(biased_run), "--human", str(labels)]) == 0
        found.append(json.loads((biased_run / "calibrated.json").read_text())["figures"]["win_rate"]["ppi"])
    assert found[0]["estimate"] == pytest.approx(found[1]["estimate"], abs=1e-12)
    assert found[0]["low"] == pytest.approx(found[1]["low"], abs=1e-12)


def test_report_prints_the_calibrated_figures(tmp_path, biased_run, simulated, capsys):
    labels = write_jsonl(tmp_path / "human.jsonl", vote_lines(simulated.human))
    cli_main(["calibrate", str(biased_run), "--human", str(labels)])
    from longform_eval.inference.report.calibration_view import calibration_lines

    text = "\n".join(calibration_lines(biased_run))
    assert "| judge only |" in text and "| humans only |" in text and "| calibrated (PPI++) |" in text
    assert "PPI++" in text and "Cohen's kappa" in text


def test_too_few_human_labels_leave_the_calibrated_figure_absent_with_the_reason(tmp_path, biased_run, simulated):
    one = dict(list(simulated.human.items())[:1])
    labels = write_jsonl(tmp_path / "one.jsonl", vote_lines(one))
    assert cli_main(["calibrate", str(biased_run), "--human", str(labels)]) == 0
    figure = json.loads((biased_run / "calibrated.json").read_text())["figures"]["win_rate"]
    assert figure["ppi"] is None and figure["human_only"] is None
    assert "at least 2" in figure["absent"]
    assert figure["judge_only"]["n_judge"] == 2000


def test_labels_of_another_config_are_refused_in_one_line(tmp_path, biased_run, capsys):
    labels = write_jsonl(
        tmp_path / "zh.jsonl",
        [{"item_id": "tencentllmeval:zh/x1", "model_a": MODEL, "model_b": BASELINE, "outcome": "A"}],
    )
    assert cli_main(["calibrate", str(biased_run), "--human", str(labels)]) == 2
    error = capsys.readouterr().err.strip()
    assert "\n" not in error and "none of its judged items" in error
    assert not (biased_run / "calibrated.json").exists()


def test_checklist_labels_for_a_pairwise_run_are_refused(tmp_path, biased_run, capsys):
    labels = write_jsonl(tmp_path / "c.jsonl", [{"row_id": "r1", "model": MODEL, "checklist_scores": [1, 0.5]}])
    assert cli_main(["calibrate", str(biased_run), "--human", str(labels)]) == 2
    assert "holds no pairwise labels" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("line", "field"),
    [
        ({"item_id": "q1", "model_a": MODEL, "model_b": BASELINE, "outcome": "maybe"}, "outcome"),
        ({"item_id": "q1", "model_a": MODEL, "outcome": "A"}, "model_b"),
        ({"row_id": "r1", "model": MODEL, "checklist_scores": [1.5]}, "checklist_scores"),
    ],
)
def test_a_bad_label_is_one_line_naming_file_line_and_field(tmp_path, biased_run, capsys, line, field):
    good = {"item_id": "q0001", "model_a": MODEL, "model_b": BASELINE, "outcome": "A"}
    labels = write_jsonl(tmp_path / "bad.jsonl", [good, line])
    assert cli_main(["calibrate", str(biased_run), "--human", str(labels)]) == 2
    error = capsys.readouterr().err.strip()
    assert "\n" not in error and f"bad.jsonl:line 2: field '{field}'" in error


def test_the_spaces_database_and_its_export_give_the_same_figures(tmp_path, biased_run, simulated):
    store = VoteStore(tmp_path / "votes.sqlite")
    votes = [
        Vote("ann1", "s1", r["item_id"], r["model_a"], r["model_b"], "sorted", r["outcome"], "A", False, time.time())
        for r in vote_lines(simulated.human)
    ]
    store.add_votes(votes)
    found = []
    for source in (tmp_path / "votes.sqlite", store.export(tmp_path / "export")[0].parent):
        assert cli_main(["calibrate", str(biased_run), "--human", str(source)]) == 0
        found.append(json.loads((biased_run / "calibrated.json").read_text())["figures"]["win_rate"])
    assert found[0]["ppi"]["n_human"] == found[1]["ppi"]["n_human"] == 100
    assert found[0]["ppi"]["estimate"] == pytest.approx(found[1]["ppi"]["estimate"], abs=1e-12)


def test_a_hellobench_run_is_calibrated_per_task(tmp_path, capsys):
    weights, task_of = flat_weights(), task_of_subcategory()
    one_per_task = {}
    for sub, task in task_of.items():
        one_per_task.setdefault(task, sub)
    rows, annotations = [], []
    for t, sub in enumerate(one_per_task.values()):
        for i in range(12):
            levels = [((i + k + t) % 5) / 4 for k in range(len(weights[sub]))]
            human = sum(level * w for level, w in zip(levels, weights[sub], strict=True))
            rows.append({"id": f"{sub}-{i}", "subcategory": sub, "row_score": min(100.0, human + 8.0)})  # lenient
            if i < 5:
                annotations.append({"row_id": f"{sub}-{i}", "model": MODEL, "checklist_scores": levels})
    run = hellobench_run(tmp_path / "hb", rows)
    labels = write_jsonl(tmp_path / "annotations.jsonl", annotations)
    assert cli_main(["calibrate", str(run), "--human", str(labels)]) == 0
    figure = json.loads((run / "calibrated.json").read_text())["figures"]["overall"]
    assert figure["strata"] == sorted(one_per_task) and len(figure["lam_by_task"]) == 5
    assert figure["judge_only"]["estimate"] - figure["ppi"]["estimate"] == pytest.approx(32.0, abs=6.0)
    assert figure["row_agreement"]["pearson_r"] > 0.9
    assert "stratified by task" in " ".join(figure["notes"])


def test_a_votes_repo_on_the_hub_is_read_as_the_space_keeps_it(hub, tmp_path, monkeypatch, biased_run, simulated):
    from hub_standin import FAKE_TOKEN
    from huggingface_hub import HfApi

    from .hub_votes_support import go_online

    go_online(monkeypatch, tmp_path)
    hub.patch_client(monkeypatch)
    journal = tmp_path / "journal"
    (journal / "votes").mkdir(parents=True)
    records = [
        {"annotator": "ann1", "session": "s", "order_shown": "sorted", "judge_outcome": "A", "token": f"t{i}", **line}
        for i, line in enumerate(vote_lines(simulated.human))
    ]
    write_jsonl(journal / "votes" / "20261126T000000Z-abc.jsonl", records)
    api = HfApi(endpoint=hub.url, token=FAKE_TOKEN)
    api.create_repo("arena-org/votes", repo_type="dataset")
    api.upload_folder(folder_path=journal, repo_id="arena-org/votes", repo_type="dataset")
    assert cli_main(["calibrate", str(biased_run), "--human", "hf://datasets/arena-org/votes"]) == 0
    document = json.loads((biased_run / "calibrated.json").read_text())
    assert document["human_source"] == "hf://datasets/arena-org/votes"
    assert document["figures"]["win_rate"]["ppi"]["n_human"] == 100


def test_which_labels_calibrate_a_run_is_the_benchmark_s_to_say():
    """No branch on a benchmark's name: the plug-in declares its labels and hands over its rows."""
    from longform_eval.inference.benchmarks import create_benchmark

    assert create_benchmark("hellobench").human_labels == "checklists"
    assert create_benchmark("tencentllmeval", "en").human_labels == "pairwise"
    assert create_benchmark("longgenbench").human_labels is None
    rows = [
        {"id": "a", "subcategory": "roleplaying_writing", "row_score": 80.0},
        {"id": "b", "subcategory": "roleplaying_writing", "row_score": None},
    ]
    (row,) = create_benchmark("hellobench").checklist_rows(
        scores_with("hellobench", "all", HELLOBENCH_FIGURES | {"rows": rows})
    )
    assert (row.id, row.subcategory, row.score) == ("a", "roleplaying_writing", 80.0) and row.task


def refused_untouched(capsys, folder, args: list[str], says: str) -> None:
    """Exit 2, one line saying `says`, and no file of `folder` written, changed or left behind (no lock)."""
    before = {path.name: path.read_bytes() for path in folder.iterdir()}
    assert cli_main(args) == 2
    error = capsys.readouterr().err.strip()
    assert "\n" not in error and says in error, error
    assert {path.name: path.read_bytes() for path in folder.iterdir()} == before


def test_calibrate_refuses_a_folder_that_is_not_a_run(tmp_path, biased_run, simulated, capsys):
    """Issue 37: a folder holding only a scores.json (and the user's notes) got a calibrated.json."""
    (biased_run / "config.yaml").unlink()
    (biased_run / "notes.txt").write_text("mine\n")
    labels = write_jsonl(tmp_path / "human.jsonl", vote_lines(simulated.human))
    refused_untouched(capsys, biased_run, ["calibrate", str(biased_run), "--human", str(labels)], "not a run folder")


def test_calibrate_takes_the_run_lock(tmp_path, biased_run, simulated, capsys):
    import fcntl

    labels = write_jsonl(tmp_path / "human.jsonl", vote_lines(simulated.human))
    with (biased_run / ".lock").open("w") as held:  # another process writing the run
        fcntl.flock(held, fcntl.LOCK_EX)
        args = ["calibrate", str(biased_run), "--human", str(labels)]
        refused_untouched(capsys, biased_run, args, "another longform-eval process is writing to this run folder")
    (biased_run / ".lock").unlink()
    assert cli_main(["calibrate", str(biased_run), "--human", str(labels)]) == 0
    assert sorted(path.name for path in biased_run.iterdir()) == ["calibrated.json", "config.yaml", "scores.json"]


@pytest.mark.parametrize(
    ("lines", "says"),
    [
        ([], "holds no human labels to calibrate"),
        (
            [{"item_id": "q0001", "model_a": "another-model", "model_b": BASELINE, "outcome": "A"}] * 3,
            "none of its 3 human labels is of the models of",
        ),
    ],
)
def test_calibrate_with_no_label_of_the_run_s_models_exits_2(tmp_path, biased_run, capsys, lines, says):
    """Issue 37: an empty file or labels of other models exited 0 with a calibrated.json holding no human figure."""
    labels = write_jsonl(tmp_path / "human.jsonl", lines)
    refused_untouched(capsys, biased_run, ["calibrate", str(biased_run), "--human", str(labels)], says)
