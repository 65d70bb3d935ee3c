"""LongBench-Write end to end with recorded completions, and the cross-benchmark length view of `report`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from scores_documents import HELLOBENCH_FIGURES, scores_with

from longform_eval.dataset_builder.longgenbench import read_setting
from longform_eval.inference.benchmarks import LengthTarget, create_benchmark
from longform_eval.inference.cli import main
from longform_eval.inference.report.sections import sections_for
from longform_eval.metric import Unscored

from .conftest import assert_intervals_hold, write_replay

DIMENSIONS = ("Relevance", "Accuracy", "Coherence", "Clarity", "Breadth and Depth", "Reading Experience")


def reply(score: int, leave_out: str | None = None) -> str:
    return json.dumps({"Analysis": "ok", **{d: score for d in DIMENSIONS if d != leave_out}})


# The first five prompts of `all`: required lengths 100, 100, 150, 200 (zh), 200 (zh).
RESPONSES = {
    "lbw_000": "word " * 200,  # twice the length: S_l 66.67
    "lbw_001": "word " * 100,  # exactly: 100
    "lbw_002": "word " * 50,  # a third: 0
    "lbw_003": "雷锋" * 50 + " spirit" * 50,  # 100 CJK characters + 50 words = 150 of 200: 83.33
    "lbw_004": "word " * 800,  # four times: 0
}
JUDGE_REPLIES = {
    "lbw_000": "```json\n" + reply(4) + "\n```",  # 75
    "lbw_001": reply(5),  # 100
    "lbw_002": reply(4, leave_out="Clarity"),  # unscored; upstream_fill: (4 * 5 + 3) / 6 -> 70.83
    "lbw_003": "I cannot rate this response.",  # unscored under both parsers
    "lbw_004": reply(3),  # 50
}


@pytest.fixture(scope="module")
def replays(tmp_path_factory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("lbw_replay")
    return (
        write_replay(folder / "model.jsonl", RESPONSES.items()),
        write_replay(folder / "judge.jsonl", JUDGE_REPLIES.items()),
    )


def lbw_run(shared_data: Path, replays: tuple[Path, Path], out: Path, *extra: str) -> list[str]:
    model, judge = replays
    return [
        *("run", "--benchmark", "longbench_write", "--limit", "5", "--source", str(shared_data / "longbench_write")),
        *("--model", f"replay:{model}", "--judge", f"replay:{judge}", "--out", str(out), *extra),
    ]


def test_five_prompts_end_to_end(shared_data, replays, tmp_path):
    out = tmp_path / "lbw"
    assert main(lbw_run(shared_data, replays, out)) == 0
    scores = json.loads((out / "scores.json").read_text())
    assert scores["s_l"] == pytest.approx((200 / 3 + 100 + 0 + 250 / 3 + 0) / 5)  # 50
    assert scores["s_q"] == pytest.approx(75.0) and scores["s"] == pytest.approx(62.5)
    assert (scores["n_items"], scores["n_scored"], scores["n_unscored"]) == (5, 3, 2)
    assert scores["unscored_reasons"] == {"missing dimension: Clarity": 1, "not JSON": 1}
    bucket = scores["buckets"]["[0,500)"]
    assert {k: bucket[k] for k in ("n_items", "n_scored", "s_l", "s_q")} == {
        "n_items": 5,
        "n_scored": 3,
        "s_l": pytest.approx(50.0),
        "s_q": pytest.approx(75.0),
    }
    assert scores["part_interval_method"].startswith("95% t interval over each part's prompts")
    assert_intervals_hold(scores | {"intervals": bucket["intervals"]}, ("s_l", "s_q"), value_of=bucket.get)
    assert (bucket["intervals"]["s_l"]["n"], bucket["intervals"]["s_q"]["n"]) == (5, 3)
    zh = scores["by_language"]["zh"]  # two outputs, one of them scored: S_q rests on one and has no interval
    assert zh["intervals"]["s_q"] is None and zh["intervals"]["s_l"]["n"] == 2
    assert scores["by_language"]["zh"]["s_l"] == pytest.approx((250 / 3 + 0) / 2)
    assert scores["dimensions"]["Clarity"] == pytest.approx(75.0) and scores["parser_rescues"] == {}
    assert_intervals_hold(scores, ("s", "s_l", "s_q"))
    assert scores["intervals"]["s_q"]["n"] == 3 and scores["intervals"]["s_l"]["n"] == 5  # S_q: scored only
    assert scores["deviations"] == [
        "judge model = verdicts recorded by a judge not named (--judge-name names it), replayed from "
        f"replay:{replays[1]} (paper: gpt-4o-2024-05-13)",
    ]  # recorded verdicts: asking again returns the same reply, so no retry rule applies
    config = yaml.safe_load((out / "config.yaml").read_text())
    assert config["generation"]["temperature"] == 0.5 and config["generation"]["max_new_tokens"] == 32768
    assert (config["judge_generation"]["temperature"], config["judge_attempts"], config["parser"]) == (0.5, 5, "strict")
    judged = {j["sample_id"]: j for j in map(json.loads, (out / "judgements.jsonl").read_text().splitlines())}
    assert judged["lbw_003"]["attempts"] == 5 and judged["lbw_003"]["verdict"] is None  # asked 5 times, unscored
    assert judged["lbw_000"]["meta"] == {} and "$RESPONSE$" not in judged["lbw_000"]["completion"]
    report = (out / "report.md").read_text()
    s, s_l, s_q = (scores["intervals"][name] for name in ("s", "s_l", "s_q"))
    figures = f"S 62.50 [{s['low']:.2f}, {s['high']:.2f}], S_l 50.00 [{s_l['low']:.2f}, {s_l['high']:.2f}], S_q 75.00"
    assert f"**{figures} [{s_q['low']:.2f}, {s_q['high']:.2f}]**" in report
    low, high = bucket["intervals"]["s_l"]["low"], bucket["intervals"]["s_l"]["high"]
    assert f"| [0,500) | 5 | 50.00 [{low:.2f}, {high:.2f}] | 3 | 75.00 [" in report
    assert "| zh | 2 | 41.67 [" in report and "| 50.00 [no interval] |" in report
    assert "- missing dimension: Clarity: 1" in report and "![length_scatter](length_scatter.png)" in report
    assert (out / "length_scatter.png").stat().st_size > 1000


def test_upstream_fill_is_a_named_deviation_and_counts_its_fills(shared_data, replays, tmp_path):
    out = tmp_path / "fill"
    assert main(lbw_run(shared_data, replays, out, "--parser", "upstream_fill")) == 0
    scores = json.loads((out / "scores.json").read_text())
    assert "judge output parser = upstream_fill (paper: strict)" in scores["deviations"]
    assert scores["parser_rescues"] == {"missing_dimension_filled_with_3": 1}
    assert (scores["n_scored"], scores["n_unscored"]) == (4, 1)
    assert scores["s_q"] == pytest.approx((75 + 100 + (23 / 6 - 1) * 25 + 50) / 4)
    assert "judge output parser = upstream_fill (paper: strict)" in (out / "report.md").read_text()
    assert main([*lbw_run(shared_data, replays, out, "--parser", "lenient")]) == 2  # not a parser of this benchmark


def test_report_shows_length_following_across_benchmarks(shared_data, replays, gpt4o_replays, tmp_path, capsys):
    generations, verdicts = gpt4o_replays
    lbw = tmp_path / "lbw"
    assert main(lbw_run(shared_data, replays, lbw)) == 0
    hello = [f"replay:{generations}", "--judge", f"replay:{verdicts}"]
    constrained, chat = tmp_path / "hb_2k", tmp_path / "hb_chat"
    assert (
        main(
            [
                "run",
                "--benchmark",
                "hellobench:length_constrained_2k",
                "--limit",
                "3",
                "--model",
                *hello,
                "--out",
                str(constrained),
            ]
        )
        == 0
    )
    assert main(["run", "--benchmark", "hellobench:chat", "--limit", "2", "--model", *hello, "--out", str(chat)]) == 0
    capsys.readouterr()
    assert main(["report", str(lbw), str(constrained), str(chat)]) == 0
    printed = capsys.readouterr().out
    table = (tmp_path / "length_following.md").read_text()
    assert f"{tmp_path / 'length_following.md'} (plot: {tmp_path / 'length_following.png'})" in printed
    rows = [line for line in table.splitlines() if line.startswith(f"| {tmp_path}")]
    assert len(rows) == 2 and str(chat) not in table  # the chat prompts ask for no length
    lbw_row = next(r for r in rows if r.startswith(f"| {lbw} |")).split(" | ")
    assert lbw_row[3:] == ["about", "CJK characters + English words", "5", "1.00", "20.0%", "60.0%", "50.00 |"]
    hb_row = next(r for r in rows if r.startswith(f"| {constrained} |")).split(" | ")
    assert hb_row[1] == "hellobench:length_constrained_2k" and hb_row[3:6] == [
        "at least",
        "words (nltk tokens, HelloBench's WC)",
        "3",
    ]
    assert (tmp_path / "length_following.png").stat().st_size > 1000
    hb_scores = json.loads((constrained / "scores.json").read_text())
    assert [r["required"] for r in hb_scores["rows"]] == [2000, 2000, 2000]
    assert "required" not in json.loads((chat / "scores.json").read_text())["rows"][0]


def test_report_of_runs_without_length_targets_writes_no_length_view(gpt4o_replays, tmp_path):
    generations, verdicts = gpt4o_replays
    chat = tmp_path / "runs" / "chat"
    args = ["--model", f"replay:{generations}", "--judge", f"replay:{verdicts}", "--out", str(chat)]
    assert main(["run", "--benchmark", "hellobench:chat", "--limit", "1", *args]) == 0
    assert main(["report", str(chat)]) == 0
    assert not list(tmp_path.rglob("length_following*"))


def test_longgenbench_word_budget_is_entries_times_the_per_entry_minimum(shared_data):
    benchmark = create_benchmark("longgenbench", "short")
    rows = read_setting(shared_data / "longgenbench", "short")
    diary, menu = rows[0], rows[200]  # "at least 200 words" per week; "between 200 and 220 words" per menu
    responses = {diary["id"]: " word" * 5000, menu["id"]: " word" * 10400}  # the output is prefix + response
    scores = scores_with("longgenbench", "short", benchmark.score([diary, menu], responses, {}).document())
    unit = "words (whitespace-split, LongGenBench's Len)"
    assert benchmark.length_targets(scores) == [
        LengthTarget(diary["id"], 52 * 200, len(diary["prefix"].split()) + 5000, unit, "at least"),
        LengthTarget(menu["id"], 52 * 200, len(menu["prefix"].split()) + 10400, unit, "at least"),
    ]


def test_a_benchmark_without_length_targets_reports_none():
    row = {"id": "a", "subcategory": "roleplaying_writing", "words": 10, "row_score": 50.0}
    scores = scores_with("hellobench", "chat", HELLOBENCH_FIGURES | {"rows": [row]})
    assert create_benchmark("hellobench", "chat").length_targets(scores) == []


def test_ruler_lengths_above_20k_get_their_own_bucket_in_the_report(tmp_path):
    benchmark = create_benchmark("longbench_write", "ruler")
    rows = [
        {"id": "r1", "required_length": 20_000, "language": "en"},
        {"id": "r2", "required_length": 30_000, "language": "zh"},
    ]
    responses = {"r1": "word " * 20_000, "r2": "字" * 10_000}  # exact; a third -> 0
    scores = {**benchmark.score(rows, responses, {"r1": Unscored("not JSON")}).document(), "model": "m"}
    assert {name: part["s_l"] for name, part in scores["buckets"].items()} == {"[4k,20k]": 100.0, ">20k": 0.0}
    assert scores["unscored_reasons"] == {"not JSON": 1, "not judged": 1} and scores["s_q"] is None
    section = sections_for(benchmark).report_section(scores_with("longbench_write", "ruler", scores), tmp_path)
    assert "| >20k | 1 | 0.00 [no interval] | 0 | - |" in section.lines  # one output: no interval
    assert "| [4k,20k] | 1 | 100.00 [no interval] | 0 | - |" in section.lines
    assert any(line.startswith("`>20k` holds required lengths above 20,000") for line in section.lines)
    assert section.plots == [tmp_path / "length_scatter.png"] and section.plots[0].is_file()


def test_bucket_intervals_narrow_with_more_prompts(shared_data, tmp_path):
    """S_l of the [0,500) bucket (the first 40 prompts: 26 in it; the first 10: all) over 10 and over 40 prompts."""
    ids = [f"lbw_{index:03d}" for index in range(40)]
    model = write_replay(
        tmp_path / "model.jsonl", [(i, "word " * (60, 120, 250, 500, 900)[n % 5]) for n, i in enumerate(ids)]
    )
    judge = write_replay(tmp_path / "judge.jsonl", [(i, reply(2 + n % 4)) for n, i in enumerate(ids)])
    widths = {}
    for limit in (10, 40):
        out = tmp_path / f"lbw_{limit}"
        assert main([*lbw_run(shared_data, (model, judge), out)[:-2], "--limit", str(limit), "--out", str(out)]) == 0
        bucket = json.loads((out / "scores.json").read_text())["buckets"]["[0,500)"]
        for name in ("s_l", "s_q"):
            interval = bucket["intervals"][name]
            assert interval["low"] <= bucket[name] <= interval["high"] and interval["high"] > interval["low"]
        widths[limit] = {
            name: bucket["intervals"][name]["high"] - bucket["intervals"][name]["low"] for name in ("s_l", "s_q")
        }
        assert bucket["n_items"] == {10: 10, 40: 26}[limit]
    assert widths[40]["s_l"] < widths[10]["s_l"] and widths[40]["s_q"] < widths[10]["s_q"]
