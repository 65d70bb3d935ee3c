"""`longform-eval leaderboard RUN... --out DIR` and `le.leaderboard(...)`: one table per comparable group, ranks and
rank ranges from the paired comparisons `report` computes, files a paper can use; and `report A B --out DIR`, which
writes comparisons.json there only, and never over another comparison. Three replay runs on 12 HelloBench chat
prompts: released responses of three models, each judged by replaying its released verdicts under one judge name."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
from pathlib import Path

import huggingface_hub
import pandas as pd
import pytest
from hub_standin import FAKE_TOKEN

import longform_eval as le
from longform_eval.inference.cli import main

from .conftest import chat_run, released, write_replay

MODELS = ("gpt4o_0806", "llama31_8b", "qwen2_7b")
LIMIT = 12
FILES = (
    "leaderboard.md",
    "leaderboard.csv",
    "leaderboard.json",
    "leaderboard.tex",
    "leaderboard.png",
    "leaderboard.pdf",
)


def replay_run(shared_data: Path, model: str, folder: Path, out: Path, other_judge: bool = False) -> Path:
    """A run of `model`'s released responses judged by its released verdicts. The judge replay file is `judge.jsonl`
    in a folder of its own, given relative to it, so that every run's judge is `replay:judge.jsonl`; with
    `other_judge`, given from `folder` (`replay:judge_<model>/judge.jsonl`): another judge for the runner."""
    responses = write_replay(
        folder / f"{model}.jsonl", ((r["id"], r["response"]) for r in released(shared_data, "generations", model))
    )
    judge_folder = folder / f"judge_{model}"
    judge_folder.mkdir(exist_ok=True)
    write_replay(
        judge_folder / "judge.jsonl",
        (
            (r["id"], json.dumps(r["checklist_wise_evaluation"], ensure_ascii=False))
            for r in released(shared_data, "judgements", model)
        ),
    )
    here = Path.cwd()
    os.chdir(folder if other_judge else judge_folder)
    judge = f"replay:judge_{model}/judge.jsonl" if other_judge else "replay:judge.jsonl"
    try:
        assert main(chat_run(LIMIT, f"replay:{responses}", judge, str(out))) == 0
    finally:
        os.chdir(here)
    return out


@pytest.fixture(scope="module")
def runs(shared_data, tmp_path_factory) -> dict[str, Path]:
    """The three comparable runs, in runs/<model>, and one judged by another judge, in others/other_judge."""
    folder = tmp_path_factory.mktemp("leaderboard_runs")
    found = {model: replay_run(shared_data, model, folder, folder / "runs" / model) for model in MODELS}
    other = folder / "others" / "other_judge"
    found["other_judge"] = replay_run(shared_data, "qwen2_7b", folder, other, other_judge=True)
    return found


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def written(runs, tmp_path_factory) -> Path:
    """`leaderboard` over the folder holding the three runs and the other judge's run folder."""
    out = tmp_path_factory.mktemp("board") / "board"
    code, printed, err = run("leaderboard", str(runs["gpt4o_0806"].parent), str(runs["other_judge"]), "--out", str(out))
    assert code == 0, err
    assert "T2:" in printed
    return out


@pytest.fixture(scope="module")
def comparisons(runs, tmp_path_factory) -> dict:
    """comparisons.json as `report A B C --out DIR` writes it for the three comparable runs."""
    out = tmp_path_factory.mktemp("compared")
    code, _, err = run("report", *(str(runs[model]) for model in MODELS), "--out", str(out))
    assert code == 0, err
    return json.loads((out / "comparisons.json").read_text())


def test_all_files_are_written_and_parse(written):
    assert all((written / name).is_file() for name in FILES)
    frame = pd.read_csv(written / "leaderboard.csv")
    assert len(frame) == 4
    for column in ("benchmark", "config", "model", "judge", "figure", "score", "low", "high", "rank", "n", "table"):
        assert column in frame.columns
    assert {"rank_low", "rank_high", "chat", "chat_low", "chat_high", "deviations"} <= set(frame.columns)
    document = json.loads((written / "leaderboard.json").read_text())
    assert document["written_by"] == "longform-eval leaderboard" and len(document["tables"]) == 2
    tex = (written / "leaderboard.tex").read_text()
    assert tex.count("\n\\begin{tabular}{") == 2 and "\\toprule" in tex and "\\bottomrule" in tex  # one a table
    assert "\\_" in tex  # model labels escaped
    markdown = (written / "leaderboard.md").read_text()
    assert "## T1: hellobench:chat" in markdown and "deviates from the paper's protocol" in markdown


def test_labels_not_file_paths_are_shown(written, runs):
    frame = pd.read_csv(written / "leaderboard.csv")
    assert set(frame["judge"]) == {"replay:judge.jsonl", "replay:judge_qwen2_7b/judge.jsonl"}
    markdown = (written / "leaderboard.md").read_text()
    assert str(runs["gpt4o_0806"]) not in markdown  # the run folder is in the json and csv only


def test_the_plot_is_a_png_at_paper_width(written):
    from PIL import Image

    data = (written / "leaderboard.png").read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    with Image.open(written / "leaderboard.png") as image:
        width = image.size[0] / image.info["dpi"][0]
    assert abs(width - 3.5) < 0.05
    assert (written / "leaderboard.pdf").read_bytes().startswith(b"%PDF")


def test_ranks_and_rank_ranges_are_those_of_the_paired_comparisons(written, runs, comparisons):
    reported = {
        row["run"]: (row["rank"], row["best"], row["worst"], row["value"], row["low"], row["high"])
        for row in comparisons["configs"][0]["rank_ranges"]["runs"]
    }
    table = json.loads((written / "leaderboard.json").read_text())["tables"][0]
    assert table["figure"] == comparisons["configs"][0]["rank_ranges"]["figure"] == "overall"
    assert table["n_shared"] == comparisons["configs"][0]["rank_ranges"]["n_shared"] == LIMIT
    by_folder = {Path(row["run"]).resolve(): row for row in table["rows"]}
    assert len(by_folder) == len(MODELS)
    for model in MODELS:
        row = by_folder[runs[model].resolve()]
        mine = (row["rank"], row["rank_low"], row["rank_high"], row["score"], row["low"], row["high"])
        assert mine == reported[str(runs[model])]
        assert row["n"] == LIMIT and row["tasks"]["chat"]["score"] == row["score"]
        assert row["deviations"] and row["complete"] is True
    assert [row["rank"] for row in table["rows"]] == sorted(row["rank"] for row in table["rows"])


def test_another_judge_is_another_table_with_its_reason(written, runs):
    tables = json.loads((written / "leaderboard.json").read_text())["tables"]
    first, second = tables
    assert len(first["rows"]) == 3 and len(second["rows"]) == 1
    assert Path(second["rows"][0]["run"]).resolve() == runs["other_judge"].resolve()
    assert "other judge" in second["reason"] and "judge_qwen2_7b" in second["reason"]
    assert second["rows"][0]["rank"] == 1 and second["id"] == "T2"
    assert "Why a table: separate from table 1: other judge" in (written / "leaderboard.md").read_text()


def test_the_python_api_gives_the_same_leaderboard(written, runs, tmp_path):
    board = le.leaderboard([runs[model] for model in MODELS] + [runs["other_judge"]], out=tmp_path / "api")
    assert isinstance(board, le.Leaderboard) and len(board.tables) == 2
    frame = board.to_pandas()
    assert list(frame.columns[:15]) == [
        "table",
        "table_reason",
        "benchmark",
        "config",
        "model",
        "judge",
        "figure",
        "score",
        "low",
        "high",
        "shared_score",
        "rank",
        "rank_low",
        "rank_high",
        "n",
    ]
    cli = pd.read_csv(written / "leaderboard.csv")
    columns = ["model", "judge", "score", "rank", "rank_low", "rank_high", "n", "table"]
    pd.testing.assert_frame_equal(
        frame[columns].sort_values(["table", "model"]).reset_index(drop=True),
        cli[columns].sort_values(["table", "model"]).reset_index(drop=True),
        check_dtype=False,
    )
    assert "Leaderboard: 4 runs in 2 tables" in repr(board)
    assert "<table" in board._repr_html_()
    assert json.loads((tmp_path / "api" / "leaderboard.json").read_text()) == board.to_dict()
    assert le.leaderboard(runs[MODELS[0]] for _ in range(1)).tables[0].rows[0].rank == 1  # nothing written


def test_out_is_required_and_a_foreign_folder_is_refused(runs, written, tmp_path):
    code, _, err = run("leaderboard", str(runs["gpt4o_0806"]))
    assert code == 2 and "--out" in err
    foreign = tmp_path / "paper"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    code, _, err = run("leaderboard", str(runs["gpt4o_0806"]), "--out", str(foreign))
    assert code == 2 and "refusing" in err and "notes.txt" in err and "Traceback" not in err
    assert sorted(p.name for p in foreign.iterdir()) == ["notes.txt"]
    again = tmp_path / "again"  # a folder an earlier leaderboard wrote is rewritten
    shutil.copytree(written, again)
    code, _, err = run("leaderboard", str(runs["gpt4o_0806"]), "--out", str(again))
    assert code == 0, err
    assert len(pd.read_csv(again / "leaderboard.csv")) == 1


def test_report_writes_comparisons_only_where_out_names_and_never_over_another(runs, tmp_path):
    a, b, c = (runs[model] for model in MODELS)
    code, printed, _ = run("report", str(a), str(b))
    assert code == 0 and "comparisons.json not written: give --out DIR" in printed
    assert not (a.parent / "comparisons.json").exists()
    out = tmp_path / "ab"
    assert run("report", str(a), str(b), "--out", str(out))[0] == 0
    first = (out / "comparisons.json").read_bytes()
    assert {e["a"] for e in json.loads(first)["comparisons"]} == {str(a)}
    assert run("report", str(a), str(b), "--out", str(out))[0] == 0  # the same comparison: rewritten
    code, _, err = run("report", str(a), str(c), "--out", str(out))
    assert code == 2 and "refusing to replace" in err and "other runs" in err
    assert (out / "comparisons.json").read_bytes() == first
    code, _, err = run("report", str(a), "--out", str(tmp_path / "one"))
    assert code == 2 and "two or more runs" in err


def test_a_repo_of_runs_on_the_hub_is_ranked_as_the_same_runs_here(hub, monkeypatch, runs, written, tmp_path):
    for name in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HF_TOKEN", FAKE_TOKEN)
    hub.patch_client(monkeypatch)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)  # the copies go to runs/hf/... here
    for model in MODELS:
        assert run("push-run", str(runs[model]), "--repo", "org/board", "--path-in-repo", f"runs/{model}")[0] == 0
    code, _, err = run("leaderboard", "hf://datasets/org/board", "--out", str(tmp_path / "board"))
    assert code == 0, err
    (table,) = json.loads((tmp_path / "board" / "leaderboard.json").read_text())["tables"]
    here = json.loads((written / "leaderboard.json").read_text())["tables"][0]
    fields = ("model", "judge", "score", "low", "high", "rank", "rank_low", "rank_high", "n")
    assert [[row[f] for f in fields] for row in table["rows"]] == [[row[f] for f in fields] for row in here["rows"]]
    assert all(row["run"].startswith("runs/hf/org/board/runs/") for row in table["rows"])
