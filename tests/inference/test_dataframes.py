"""Runs in notebooks (issue 36): `to_pandas` at figure, task and row level, figures apart from counts, display names
from the flags to the one-line view, `import_generations` in the Python API, and short reprs."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml
from scores_documents import LONGBENCH_WRITE_FIGURES, LONGGENBENCH_FIGURES, PAIRWISE_FIGURES, scores_with

import longform_eval as le
from longform_eval.inference.api import frames
from longform_eval.inference.cli import main

from .conftest import chat_run, write_replay

LIMIT = 4  # the first HelloBench chat prompts: chat_002, ...
MAX_REPR = 160


def read_json(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def named_run(gpt4o_replays, tmp_path_factory) -> le.RunResult:
    """GPT-4o's answers on the first chat prompts, judged by its released verdicts, named "GPT-4o"."""
    generations, verdicts = gpt4o_replays
    return le.run(
        benchmark="hellobench:chat",
        model=f"replay:{generations}",
        judge=f"replay:{verdicts}",
        out=tmp_path_factory.mktemp("dataframes") / "gpt4o",
        limit=LIMIT,
        name="GPT-4o",
        judge_name="GPT-4o (released verdicts)",
    )


def test_figures_one_row_per_figure_with_its_interval_headline_first(named_run):
    figures = named_run.to_pandas()
    scores = read_json(named_run.scores_path)
    assert list(figures.columns[:8]) == ["run", "benchmark", "figure", "value", "low", "high", "n", "headline"]
    assert figures.figure.tolist()[0] == "overall" and figures.headline.tolist()[0]
    assert set(figures.figure) == set(named_run.scores) and set(figures.run) == {"GPT-4o"}
    for name, interval in scores["intervals"].items():
        row = figures[figures.figure == name].iloc[0]
        assert row.value == pytest.approx(named_run.scores[name])
        assert (row.low, row.high, row.n) == (pytest.approx(interval["low"]), pytest.approx(interval["high"]), LIMIT)
    assert figures[figures.figure == "mean_word_count"].low.isna().all()  # a figure without an interval


def test_tasks_one_row_per_group_figure_with_its_interval(named_run):
    tasks = named_run.to_pandas("tasks")
    scores = read_json(named_run.scores_path)
    assert list(tasks.columns) == list(frames.TASK_COLUMNS)
    chat = tasks[(tasks.group == "tasks") & (tasks.name == "chat") & (tasks.figure == "score")].iloc[0]
    assert chat.value == pytest.approx(scores["tasks"]["chat"]["score"])
    assert (chat.low, chat.high) == pytest.approx(named_run.intervals["chat"]) and chat.n == LIMIT
    subcategories = tasks[tasks.group == "subcategories"]
    assert set(subcategories.name) == {row["subcategory"] for row in scores["rows"]}
    assert subcategories.value.notna().all()  # a group figure scores.json leaves empty is no row


def test_rows_one_row_per_sample_with_the_judges_verdict(named_run):
    rows = named_run.to_pandas("rows")
    scores = read_json(named_run.scores_path)
    assert list(rows.columns[:11]) == list(frames.ROW_COLUMNS)
    assert rows.id.tolist() == [row["id"] for row in scores["rows"]] and len(rows) == LIMIT
    assert set(rows.task) == {"chat"} and rows.subcategory.tolist() == [r["subcategory"] for r in scores["rows"]]
    assert rows.score.tolist() == pytest.approx([row["row_score"] for row in scores["rows"]])
    assert rows.words.tolist() == [row["words"] for row in scores["rows"]]
    judgements = {}
    for line in (named_run.folder / "judgements.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        judgements[record["sample_id"]] = record
    first = rows.iloc[0]
    assert first.verdict == judgements[first.id]["verdict"] and first.completion == judgements[first.id]["completion"]
    assert set(rows.judgements) == {1} and rows.unscored_reason.isna().all()


def test_an_unknown_level_names_the_field(named_run):
    with pytest.raises(le.ConfigError) as error:
        named_run.to_pandas("samples")
    assert error.value.field == "level" and "figures, tasks, rows" in str(error.value)


def test_scores_hold_figures_and_counts_stay_integers(named_run):
    scores = read_json(named_run.scores_path)
    assert all(type(value) is float for value in named_run.scores.values())
    assert all(type(value) is int for value in named_run.counts.values())
    assert named_run.counts["n_samples"] == named_run.counts["n_scored"] == LIMIT
    assert not {"schema_version", "n_samples", "n_scored", "judge_samples"} & set(named_run.scores)
    assert "schema_version" not in named_run.counts and named_run.counts["judge_samples"] == scores["judge_samples"]


def test_the_repr_is_one_short_line_with_the_label_and_no_path(named_run):
    shown = repr(named_run)
    assert len(shown) <= MAX_REPR and "\n" not in shown, shown
    assert "GPT-4o" in shown and "hellobench:chat" in shown and "overall" in shown and "pending=0" in shown
    assert str(named_run.folder) not in shown and "replay:" not in shown and ".jsonl" not in shown
    html = named_run._repr_html_()
    assert "<table>" in html and "GPT-4o (released verdicts)" in html and ".jsonl" not in html


def test_an_empty_frame_keeps_its_columns_before_scoring(gpt4o_replays, tmp_path):
    generated = le.generate(
        benchmark="hellobench:chat", model=f"replay:{gpt4o_replays[0]}", out=tmp_path / "run", limit=2
    )
    assert "not scored yet" in repr(generated) and generated.counts == {}
    for level, columns in (("figures", frames.FIGURE_COLUMNS), ("tasks", frames.TASK_COLUMNS)):
        found = generated.to_pandas(level)
        assert found.empty and list(found.columns) == list(columns)
    assert list(generated.to_pandas("rows").columns) == list(frames.ROW_COLUMNS)


# ----- display names ------------------------------------------------------------------------------------------------
def test_a_display_name_from_the_flags_to_open_run(gpt4o_replays, tmp_path):
    generations, verdicts = gpt4o_replays
    out = tmp_path / "cli"
    names = ("--name", "GPT-4o 0806", "--judge-name", "GPT-4o judge")
    assert main(chat_run(2, f"replay:{generations}", f"replay:{verdicts}", str(out), *names)) == 0
    opened = le.open_run(out)
    assert (opened.name, opened.judge_name) == ("GPT-4o 0806", "GPT-4o judge")
    assert opened.model == f"replay:{generations}" == read_json(out / "scores.json")["model"]  # the id stays
    assert "GPT-4o 0806" in repr(opened) and str(tmp_path) not in repr(opened)
    assert set(opened.to_pandas().run) == {"GPT-4o 0806"}
    # resumed without the flags: the names stay; renamed: no record changes, no call is made
    assert main(chat_run(2, f"replay:{generations}", f"replay:{verdicts}", str(out))) == 0
    assert le.open_run(out).name == "GPT-4o 0806"
    before = (out / "generations.jsonl").read_bytes(), (out / "judgements.jsonl").read_bytes()
    assert main(chat_run(2, f"replay:{generations}", f"replay:{verdicts}", str(out), "--name", "Renamed")) == 0
    assert le.open_run(out).name == "Renamed" and yaml.safe_load((out / "config.yaml").read_text())["name"] == "Renamed"
    assert ((out / "generations.jsonl").read_bytes(), (out / "judgements.jsonl").read_bytes()) == before


def test_judge_names_its_judge_and_a_judge_name_needs_a_judge(gpt4o_replays, tmp_path):
    generations, verdicts = gpt4o_replays
    with pytest.raises(le.ConfigError) as error:
        le.generate(benchmark="hellobench:chat", model=f"replay:{generations}", out=tmp_path / "x", judge_name="J")
    assert error.value.field == "judge_name" and not (tmp_path / "x").exists()
    with pytest.raises(le.ConfigError) as error:
        le.generate(benchmark="hellobench:chat", model=f"replay:{generations}", out=tmp_path / "x", name="a\nb")
    assert error.value.field == "name"
    le.generate(benchmark="hellobench:chat", model=f"replay:{generations}", out=tmp_path / "run", limit=2, name="M")
    judged = le.judge(tmp_path / "run", judge=f"replay:{verdicts}", judge_name="Released verdicts")
    assert (judged.name, judged.judge_name, judged.judge) == ("M", "Released verdicts", f"replay:{verdicts}")


# ----- import_generations -------------------------------------------------------------------------------------------
@pytest.fixture
def responses(gpt4o_replays, tmp_path) -> Path:
    """GPT-4o's answers to the first chat prompts as JSON Lines of {id, response}."""
    lines = gpt4o_replays[0].read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    chat = [r for r in records if r["key"].startswith("chat_")][:LIMIT]
    path = tmp_path / "gpt4o.jsonl"
    path.write_text("".join(json.dumps({"id": r["key"], "response": r["text"]}) + "\n" for r in chat))
    return path


def test_import_generations_in_the_api_then_judge_and_score(gpt4o_replays, responses, tmp_path):
    out = tmp_path / "imported"
    imported = le.import_generations(responses, out, benchmark="hellobench:chat", name="GPT-4o released")
    assert (imported.generated, imported.judged, imported.name, imported.model) == (
        LIMIT,
        0,
        "GPT-4o released",
        "imported:GPT-4o released",
    )
    again = le.import_generations(responses, out, benchmark="hellobench:chat", name="GPT-4o released")
    assert again.generated == LIMIT and len((out / "generations.jsonl").read_text().splitlines()) == LIMIT
    le.judge(out, judge=f"replay:{gpt4o_replays[1]}")
    scored = le.score(out)
    assert scored.counts["n_scored"] >= 1 and scored.name == "GPT-4o released" and scored.headline == "overall"


def test_import_generations_refuses_unknown_ids_naming_responses(responses, tmp_path):
    bad = write_replay(tmp_path / "bad.jsonl", [])
    bad.write_text(json.dumps({"id": "no_such_id", "response": "text"}) + "\n")
    with pytest.raises(le.ConfigError) as error:
        le.import_generations(bad, tmp_path / "out", benchmark="hellobench:chat")
    assert error.value.field == "responses" and "no_such_id" in str(error.value) and not (tmp_path / "out").exists()
    with pytest.raises(le.ConfigError) as error:
        le.import_generations(responses, tmp_path / "out", benchmark="hellobench:chat", limit=3)
    assert error.value.field == "limit"


# ----- comparisons --------------------------------------------------------------------------------------------------
def test_comparisons_to_pandas_one_row_per_pair_and_figure(named_run, gpt4o_replays, tmp_path):
    generations, verdicts = gpt4o_replays
    harsh_replies = []
    for line in verdicts.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        items = [dict(item, evaluation_score=0) for item in json.loads(record["text"])]
        harsh_replies.append((record["key"], json.dumps(items)))
    harsh = write_replay(tmp_path / "harsh.jsonl", harsh_replies)
    other = le.run(
        benchmark="hellobench:chat",
        model=f"replay:{generations}",
        judge=f"replay:{harsh}",
        out=tmp_path / "harsh",
        limit=LIMIT,
        name="GPT-4o, harsh judge",
        judge_name="GPT-4o (released verdicts)",  # named as one judge with the first run's: compared (comparability)
    )
    comparisons = le.compare([named_run, other])
    table = comparisons.to_pandas()
    assert list(table.columns[:9]) == [
        "benchmark",
        "a",
        "b",
        "figure",
        "difference",
        "low",
        "high",
        "p",
        "distinguishable",
    ]
    assert len(table) == len(comparisons) and set(table.figure) == {"overall", "chat"}
    assert set(table.a) == {"GPT-4o"} and set(table.b) == {"GPT-4o, harsh judge"}
    overall = table[table.figure == "overall"].iloc[0]
    assert overall.difference == pytest.approx(named_run.scores["overall"] - other.scores["overall"])
    assert overall.low <= overall.difference <= overall.high and bool(overall.distinguishable)
    assert overall.a_folder == str(named_run.folder)
    shown = repr(comparisons)
    assert len(shown) <= 2 * MAX_REPR and "GPT-4o" in shown and str(tmp_path) not in shown
    assert "<table>" in comparisons._repr_html_()


# ----- tasks of the other layouts -----------------------------------------------------------------------------------
def interval(low: float, high: float, n: int) -> dict:
    return {"low": low, "high": high, "se": 1.0, "n": n}


def stub(benchmark: str) -> SimpleNamespace:
    return SimpleNamespace(name="model", benchmark=benchmark)


def test_tasks_of_longbench_write_longgenbench_and_pairwise():
    longbench_write = LONGBENCH_WRITE_FIGURES | {
        "buckets": {"[0, 500)": {"n_items": 3, "n_scored": 3, "s_l": 80.0, "s_q": 70.0, "intervals": {}}},
        "by_language": {"en": {"n_items": 5, "n_scored": 5, "s_l": 75.0, "s_q": None, "intervals": {}}},
    }
    longbench_write["buckets"]["[0, 500)"]["intervals"]["s_l"] = interval(60.0, 90.0, 3)
    found = frames.group_records(stub("longbench_write:all"), scores_with("longbench_write", "all", longbench_write))
    assert [(r["group"], r["name"], r["figure"], r["value"], r["low"], r["n"]) for r in found] == [
        ("buckets", "[0, 500)", "s_l", 80.0, 60.0, 3),
        ("buckets", "[0, 500)", "s_q", 70.0, None, 3),
        ("by_language", "en", "s_l", 75.0, None, 5),
    ]
    longgenbench = LONGGENBENCH_FIGURES | {
        "by_scenario": {
            "diary": {"n_checks": 4, "n_judged": 4, "n_yes": 2, "n_unscored": 0, "stic1": 0.5, "stic2": None}
        },
    }
    found = frames.group_records(stub("longgenbench:short"), scores_with("longgenbench", "short", longgenbench))
    assert [(r["group"], r["name"], r["figure"], r["value"]) for r in found] == [("by_scenario", "diary", "stic1", 0.5)]
    pairwise = PAIRWISE_FIGURES | {
        "groups": {"area": {"writing": {"n": 4, "n_unscored": 0, "win_rate": 0.25, "intervals": {}}}},
        "bradley_terry": {"model": {"rating": 1000.0, "lower": 990.0, "upper": 1010.0}},  # no group: no row
    }
    pairwise["groups"]["area"]["writing"]["intervals"]["win_rate"] = interval(0.0, 0.6, 4)
    found = frames.group_records(stub("tencentllmeval:en"), scores_with("tencentllmeval", "en", pairwise))
    assert [(r["group"], r["name"], r["figure"], r["high"], r["n"]) for r in found] == [
        ("area", "writing", "win_rate", 0.6, 4)
    ]
    assert frames.frame(found, frames.TASK_COLUMNS).n.dtype.name == "Int64"
