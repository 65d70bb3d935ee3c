"""The Python API: docs/python-api.md runs as written; refused settings name their field; Run() is pure; `le.run`,
its stages and the CLI write the same run; `open_run` reads it back; `compare` pairs runs; failed calls stay pending."""

from __future__ import annotations

import doctest
import json
import os
from pathlib import Path

import pytest
import yaml

import longform_eval as le
from longform_eval.inference.runner.inputs import records_hash

from .conftest import chat_run, write_replay

DOCS = Path(__file__).resolve().parents[2] / "docs" / "python-api.md"


def files_of(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_the_documented_examples_run():
    assert os.environ.get("LONGFORM_EVAL_SOURCE")
    result = doctest.testfile(str(DOCS), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize(
    ("settings", "field"),
    [
        ({"model": "replay:x.jsonl", "model_args": {"no_such": 1}}, "model_args"),
        ({"model": "replay:x.jsonl", "judge": "replay:x.jsonl", "judge_args": {"delay": -1}}, "judge_args"),
        ({"model": "replay:x.jsonl", "judge_samples": 0}, "judge_samples"),
        (
            {"model": "replay:x.jsonl", "judge": "replay:y.jsonl", "judge_samples": 3, "judge_temperature": 0},
            "judge_samples",
        ),
        ({"model": "replay:x.jsonl", "benchmark": "nobench:chat"}, "benchmark"),
        ({"model": "replay:x.jsonl", "colour": "red"}, "colour"),
        ({"model": "noslash"}, "model"),
        ({"model": "replay:x.jsonl", "parser": "nope"}, "parser"),
        ({"model": "replay:x.jsonl"}, "judge"),
        ({"model": "replay:x.jsonl", "limit": True}, "limit"),
        ({"model": "replay:x.jsonl", "limit": "3"}, "limit"),
        ({"model": "replay:x.jsonl", "shortest": "yes"}, "shortest"),
        ({"model": "replay:missing.jsonl", "judge": "replay:y.jsonl"}, "model"),
        ({"model": "replay:x.jsonl", "judge": "replay:missing.jsonl"}, "judge"),
    ],
)
def test_a_refused_setting_names_its_field_and_writes_nothing(replay_files, settings, field):
    out = replay_files / "run"
    with pytest.raises(le.ConfigError) as error:
        le.run(out=out, **{"judge": "replay:y.jsonl", **settings} if field != "judge" else settings)
    assert error.value.field == field and str(error.value).startswith(f"{field}: ")
    assert not out.exists()


@pytest.fixture
def replay_files(tmp_path, monkeypatch):
    """Empty replay files x.jsonl and y.jsonl in the current folder (a setting is refused before any is read)."""
    monkeypatch.chdir(tmp_path)
    for name in ("x.jsonl", "y.jsonl"):
        (tmp_path / name).write_text("", encoding="utf-8")
    return tmp_path


def test_judge_options_without_a_judge_are_refused_even_when_only_generating(replay_files):
    with pytest.raises(le.ConfigError) as error:
        le.generate(model="replay:x.jsonl", judge_args={"delay": 1}, out=replay_files / "run")
    assert error.value.field == "judge_args" and not (replay_files / "run").exists()


def test_a_dry_run_writes_nothing(replay_files, capsys):
    from longform_eval.inference.cli import main

    out = replay_files / "run"
    args = ["run", "--benchmark", "hellobench:chat", "--limit", "2", "--model", "replay:x.jsonl"]
    assert main([*args, "--judge", "replay:y.jsonl", "--out", str(out), "--dry-run"]) == 0
    assert "2 generation calls" in capsys.readouterr().out and not out.exists()


def test_constructing_a_run_writes_nothing(replay_files):
    from longform_eval.inference.api import RunSettings, build_config
    from longform_eval.inference.runner import Run

    config = build_config("hellobench:chat", "replay:x.jsonl", "replay:y.jsonl", RunSettings(limit=1))
    folder = replay_files / "run"
    folder.mkdir()
    run = Run(folder, config, benchmark=None, rows=[])
    assert run.config is config and files_of(folder) == {} and list(folder.iterdir()) == []
    created = Run.create(folder, config)
    assert (folder / "config.yaml").is_file() and config.dataset_hash == "" and created.config.dataset_hash != ""


LIMIT = 4  # the first HelloBench chat prompts: chat_002, ...
NAMES = ("folder", "benchmark", "model", "judge")


def chat(model: Path, judge: Path | None, out: Path, **settings) -> le.RunResult:
    """A run of LIMIT chat prompts; its judge named "judge" (replay files of one judge's verdicts: comparable)."""
    judged = {"judge": f"replay:{judge}", "judge_name": "judge"} if judge is not None else {}
    return le.run(benchmark="hellobench:chat", model=f"replay:{model}", out=out, limit=LIMIT, **judged, **settings)


def read_json(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def counts(result: le.RunResult) -> tuple:
    return (result.rows, result.generated, result.judged, result.unscored, result.failed, result.pending)


def figures(result: le.RunResult) -> tuple:
    return result.scores, result.intervals, result.headline


def replies(path: Path) -> dict[str, str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return {record["key"]: record["text"] for record in map(json.loads, lines)}


@pytest.fixture
def judge_one_unusable(gpt4o_replays, tmp_path) -> Path:
    """GPT-4o's verdicts, but one of the first prompts' replies is no verdict (the row is judged, and unscored)."""
    verdicts = replies(gpt4o_replays[1])
    verdicts["chat_002"] = "I cannot judge this."
    return write_replay(tmp_path / "one-unusable.jsonl", verdicts.items())


def test_run_returns_the_scores_json_figures_and_the_counts(gpt4o_replays, judge_one_unusable, tmp_path):
    result = chat(gpt4o_replays[0], judge_one_unusable, tmp_path / "run")
    scores = read_json(tmp_path / "run" / "scores.json")
    assert result.folder == tmp_path / "run" and result.scores_path == tmp_path / "run" / "scores.json"
    assert (result.benchmark, result.model) == ("hellobench:chat", f"replay:{gpt4o_replays[0]}")
    assert result.judge == f"replay:{judge_one_unusable}" and result.headline == "overall"
    assert counts(result) == (LIMIT, LIMIT, LIMIT, 1, 0, 0) and result.complete and scores["complete"] is True
    assert result.scores["overall"] == pytest.approx(scores["overall"])
    assert result.scores["chat"] == pytest.approx(scores["tasks"]["chat"]["score"])
    assert scores["n_scored"] == LIMIT - 1 and result.counts["n_unscored"] == 1 and "n_unscored" not in result.scores
    for name in ("overall", "chat"):
        low, high = result.intervals[name]
        assert (low, high) == pytest.approx((scores["intervals"][name]["low"], scores["intervals"][name]["high"]))
        assert low < result.scores[name] < high
    assert result.report_path.is_file() and result.config_path.is_file()


def test_open_run_reads_back_what_run_returned(gpt4o_replays, judge_one_unusable, tmp_path):
    ran = chat(gpt4o_replays[0], judge_one_unusable, tmp_path / "run")
    before = files_of(tmp_path / "run")
    opened = le.open_run(str(tmp_path / "run"))
    assert figures(opened) == figures(ran) and counts(opened) == counts(ran) and opened.complete
    assert [getattr(opened, name) for name in NAMES] == [getattr(ran, name) for name in NAMES]
    assert opened.config.model_dump(mode="json") == ran.config.model_dump(mode="json")
    assert files_of(tmp_path / "run") == before  # read as it is


def test_open_run_equals_the_result_of_run(gpt4o_replays, tmp_path):
    """The whole RunResult, its RunConfig included (a `selection` read back from config.yaml holds lists)."""
    ran = chat(gpt4o_replays[0], gpt4o_replays[1], tmp_path / "run", subcategory=["report_write"])
    assert ran.config.selection["groups"] == ["report_write"] and ran.rows == LIMIT
    assert le.open_run(tmp_path / "run") == ran


def test_the_cli_and_the_api_write_the_same_run(gpt4o_replays, tmp_path):
    generations, verdicts = gpt4o_replays
    from longform_eval.inference.cli import main

    arguments = chat_run(
        LIMIT,
        f"replay:{generations}",
        f"replay:{verdicts}",
        str(tmp_path / "cli"),
        "--per-group",
        "3",
        "--judge-name",
        "judge",
    )
    assert main(arguments) == 0
    chat(generations, verdicts, tmp_path / "api", per_group=3)
    config = {name: yaml.safe_load((tmp_path / name / "config.yaml").read_text()) for name in ("cli", "api")}
    assert config["cli"] == config["api"] and config["api"]["selection"]["per_group"] == 3
    scores = {name: read_json(tmp_path / name / "scores.json") for name in ("cli", "api")}
    for name, figures_of_run in scores.items():  # each knows its own logs, whose timings may differ (`seconds`)
        assert figures_of_run.pop("inputs") == records_hash(tmp_path / name)
    # the same rows, replies and bootstrap seed: every figure, intervals included, is computed from the same inputs
    assert scores["cli"] == scores["api"] and scores["api"]["n_scored"] == 3  # one group (the task)
    assert (tmp_path / "cli" / "report.md").is_file() and (tmp_path / "api" / "report.md").is_file()


def test_calls_the_judge_replay_cannot_answer_stay_pending_and_nothing_is_final(gpt4o_replays, tmp_path):
    generations, verdicts = gpt4o_replays
    kept = [(key, text) for key, text in replies(verdicts).items() if key not in ("chat_002", "chat_003")]
    partial = write_replay(tmp_path / "partial.jsonl", kept)
    result = chat(generations, partial, tmp_path / "run", judge_attempts=1)
    scores = read_json(tmp_path / "run" / "scores.json")
    assert result.pending == 2 and result.failed == 2 and not result.complete
    assert (result.generated, result.judged) == (LIMIT, LIMIT - 2)
    assert scores["complete"] is False and scores["n_pending_judge_calls"] == 2 and scores["n_scored"] == LIMIT - 2
    failures = [json.loads(line) for line in (tmp_path / "run" / "failures.jsonl").read_text().splitlines()]
    assert {(record["stage"], record["key"]) for record in failures} == {("judge", "chat_002"), ("judge", "chat_003")}
    reopened = le.open_run(tmp_path / "run")
    assert (reopened.pending, reopened.complete) == (2, False)


def test_compare_pairs_two_runs_with_a_difference_and_an_interval(gpt4o_replays, tmp_path):
    generations, verdicts = gpt4o_replays
    zero = [
        (key, json.dumps([dict(item, evaluation_score=0) for item in json.loads(text)]))
        for key, text in replies(verdicts).items()
    ]
    harsh = write_replay(tmp_path / "harsh.jsonl", zero)
    a = chat(generations, verdicts, tmp_path / "gpt4o")
    b = chat(generations, harsh, tmp_path / "harsh")
    comparisons = le.compare([a, b.folder])
    assert len(comparisons) >= 1 and comparisons.pairs[0].figure == "overall"
    for pair in comparisons:
        low, high = pair.interval
        assert pair.benchmark == "hellobench:chat" and pair.paired and pair.units == LIMIT
        assert pair.difference == pytest.approx(a.scores[pair.figure] - b.scores[pair.figure])
        assert low <= pair.difference <= high and pair.distinguishable == (not low <= 0 <= high)
    assert comparisons.pairs[0].distinguishable is True  # every checklist item scored 0 against GPT-4o's verdicts
    table = str(comparisons)
    assert table == comparisons.table() and "gpt4o" in table and "harsh" in table and "distinguishable" in table


def test_the_stages_give_the_scores_of_run(gpt4o_replays, tmp_path):
    generations, verdicts = gpt4o_replays
    whole = chat(generations, verdicts, tmp_path / "whole")
    generated = le.generate(
        benchmark="hellobench:chat", model=f"replay:{generations}", out=tmp_path / "staged", limit=LIMIT
    )
    assert (generated.generated, generated.judged, generated.scores) == (LIMIT, 0, {})
    assert not (tmp_path / "staged" / "scores.json").exists() and generated.judge is None
    judged = le.judge(tmp_path / "staged", judge=f"replay:{verdicts}")
    assert judged.judged == LIMIT and judged.judge == f"replay:{verdicts}"
    scored = le.score(tmp_path / "staged")
    assert scored.scores["overall"] == pytest.approx(whole.scores["overall"])
    assert scored.intervals["overall"] == pytest.approx(whole.intervals["overall"])
    assert counts(scored) == counts(whole) and scored.complete
