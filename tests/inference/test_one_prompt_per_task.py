"""Two replay runs of one prompt per task (`--per-group 1`, as the main job selects): no figure or difference gets
a zero-width interval, none is "distinguishable", and every figure without an interval says why (issue 31)."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from longform_eval.inference.cli import main

from .conftest import released, write_replay

MODELS = ("gpt4o_0806", "llama31_8b")
WHY = "one prompt per task: no variance to estimate"


def replay_run(shared_data: Path, model: str, folder: Path) -> Path:
    generations = write_replay(
        folder / f"gen_{model}.jsonl", ((r["id"], r["response"]) for r in released(shared_data, "generations", model))
    )
    verdicts = write_replay(
        folder / f"judge_{model}.jsonl",
        (
            (r["id"], json.dumps(r["checklist_wise_evaluation"], ensure_ascii=False))
            for r in released(shared_data, "judgements", model)
        ),
    )
    out = folder / model
    arguments = ["run", "--benchmark", "hellobench:all", "--per-group", "1", "--model", f"replay:{generations}"]
    with contextlib.redirect_stdout(io.StringIO()):
        judge = ["--judge", f"replay:{verdicts}", "--judge-name", "gpt-4o"]  # one judge's released verdicts
        assert main([*arguments, *judge, "--out", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def one_per_task(shared_data, tmp_path_factory) -> tuple[dict[str, Path], str, dict]:
    folder = tmp_path_factory.mktemp("one_per_task")
    runs = {model: replay_run(shared_data, model, folder) for model in MODELS}
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert main(["report", *map(str, runs.values()), "--out", str(folder)]) == 0
    document = json.loads((folder / "comparisons.json").read_text())
    return runs, printed.getvalue(), document


def test_no_figure_of_a_run_gets_an_interval_and_each_says_why(one_per_task):
    runs, _, _ = one_per_task
    for folder in runs.values():
        scores = json.loads((folder / "scores.json").read_text())
        assert scores["intervals"] and all(found is None for found in scores["intervals"].values())
        assert scores["interval_notes"]["overall"] == WHY
        assert set(scores["interval_notes"]) == set(scores["intervals"])  # each task rests on one prompt too
        report = (folder / "report.md").read_text()
        assert f"`overall`: {WHY}" in report


def test_no_difference_is_distinguishable_nor_of_zero_width(one_per_task):
    _, printed, document = one_per_task
    entries = document["comparisons"]
    assert entries and not any(entry["distinguishable"] for entry in entries)
    for entry in entries:
        assert entry["low"] is None and entry["high"] is None and entry["se"] is None
        assert entry["reason"] == WHY and entry["difference"] is not None
    headline = next(entry for entry in entries if entry["figure"] == "overall")
    a, b = (
        json.loads((Path(entry) / "scores.json").read_text())["overall"] for entry in (headline["a"], headline["b"])
    )
    assert headline["difference"] == pytest.approx(a - b)
    shown = f"{headline['difference']:.2f}"
    assert f"{shown} [{shown}, {shown}]" not in printed  # the issue's `30.67 [30.67, 30.67]`
    assert " higher |" not in printed  # no pair is ranked
    assert f"no interval ({WHY}): not ranked" in printed


def test_rank_ranges_span_both_ranks(one_per_task):
    _, printed, document = one_per_task
    rows = document["configs"][0]["rank_ranges"]["runs"]
    assert [(row["best"], row["worst"]) for row in rows] == [(1, 2), (1, 2)]
    assert "| 1..2 |" in printed
