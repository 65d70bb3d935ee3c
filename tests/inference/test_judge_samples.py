"""`--judge-samples K`: K judge calls per judgement with seeds seed, seed + 1, ...; the judge's noise measured."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from longform_eval.inference.cli import main
from longform_eval.inference.runner.judge_samples import sample_key, split_sample_key, verdicts_by_sample

from .conftest import chat_run
from .fault_server import FaultServer

LEVEL_OF_SEED = {42: 0.5, 43: 0.75, 44: 1.0}  # HelloBench's judge seed is 42


def noisy_verdict(body: dict, prompt: str) -> str:
    """A judge whose verdict level depends on the request's seed: every checklist at one level."""
    count = prompt.count('"checklist_content"')
    level = LEVEL_OF_SEED.get(body.get("seed"), 0.0)
    return json.dumps([{"checklist_id": i, "reason": "ok", "evaluation_score": level} for i in range(count)])


def lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []


def noisy_run(generations: Path, url: str, out: Path, *extra: str) -> list[str]:
    return chat_run(3, f"replay:{generations}", "openai:judge", str(out), "--judge-arg", f"base_url={url}", *extra)


def test_three_samples_three_seeds_and_the_judge_noise_measured(gpt4o_replays, tmp_path, capsys):
    generations, _ = gpt4o_replays
    out = tmp_path / "run"
    with FaultServer(ok_answer=noisy_verdict) as server:
        assert main(noisy_run(generations, server.url, out, "--judge-samples", "3")) == 0
        seeds = Counter(body.get("seed") for body in server.bodies)
        assert seeds == {42: 3, 43: 3, 44: 3}  # 3 rows x 3 samples, each sample its own seed
        records = lines(out / "judgements.jsonl")
        assert len(records) == 9 and len({r["key"] for r in records}) == 9
        calls = len(server.bodies)
        assert main(noisy_run(generations, server.url, out, "--judge-samples", "3")) == 0
        assert len(server.bodies) == calls  # the rerun makes no call
    scores = json.loads((out / "scores.json").read_text())
    assert scores["judge_samples"] == 3
    assert scores["judge_sd"] == pytest.approx(25.0)  # row scores 50, 75, 100 on every row
    assert scores["tasks"]["chat"]["score"] == pytest.approx(0.0)  # the mean row score 75 -> (75 - 75) * 4
    assert scores["overall"] == pytest.approx(0.0)
    # every row has the same mean: the figure's measured variance is 0, so no interval and nothing to split
    assert scores["intervals"]["overall"] is None and "overall" not in scores["variance_split"]
    assert "Traceback" not in capsys.readouterr().err


def test_raising_the_samples_on_a_finished_run_makes_only_the_new_calls(gpt4o_replays, tmp_path):
    generations, _ = gpt4o_replays
    out = tmp_path / "run"
    with FaultServer(ok_answer=noisy_verdict) as server:
        assert main(noisy_run(generations, server.url, out)) == 0
        assert json.loads((out / "scores.json").read_text())["judge_sd"] is None
        assert Counter(body.get("seed") for body in server.bodies) == {42: 3}
        assert main(noisy_run(generations, server.url, out, "--judge-samples", "2")) == 0  # no --force needed
        assert Counter(body.get("seed") for body in server.bodies) == {42: 3, 43: 3}
    scores = json.loads((out / "scores.json").read_text())
    assert scores["judge_samples"] == 2 and scores["judge_sd"] == pytest.approx(12.5 * 2**0.5)
    assert "judge_samples: 2" in (out / "config.yaml").read_text()


def test_a_greedy_judge_takes_one_sample_and_refuses_three(gpt4o_replays, tmp_path, capsys):
    generations, _ = gpt4o_replays
    with FaultServer(ok_answer=noisy_verdict) as server:
        greedy = ("--judge-temperature", "0")
        refused = tmp_path / "refused"
        assert main(noisy_run(generations, server.url, refused, *greedy, "--judge-samples", "3")) == 2
        err = capsys.readouterr().err
        assert "--judge-samples 3" in err and "temperature 0" in err and "Traceback" not in err
        assert len(err.strip().splitlines()) == 1 and not refused.exists() and not server.bodies
        assert main(noisy_run(generations, server.url, tmp_path / "one", *greedy, "--judge-samples", "1")) == 0
        assert len(server.bodies) == 3


def test_sample_keys_round_trip_and_split():
    assert sample_key("chat_002", 0) == "chat_002" and sample_key("chat_002", 2) == "chat_002~s2"
    assert split_sample_key("x#ab@12~s3") == ("x#ab@12", 3) and split_sample_key("q~2") == ("q~2", 0)
    split = verdicts_by_sample({"a": 1, "a~s1": 2, "a~s5": 9, "b~s1": 3}, 2)
    assert split == [{"a": 1}, {"a": 2, "b": 3}]


def test_one_prompt_per_task_gets_no_interval_and_says_why(gpt4o_replays, tmp_path, capsys):
    """The demo's selection: one prompt per task measures no spread within a task: no interval, never a zero width."""
    generations, verdicts = gpt4o_replays
    out = tmp_path / "run"
    select = ("--benchmark", "hellobench:all", "--per-group", "1", "--shortest")
    model, judge = f"replay:{generations}", f"replay:{verdicts}"
    assert main(["run", *select, "--model", model, "--judge", judge, "--out", str(out)]) == 0
    scores = json.loads((out / "scores.json").read_text())
    assert scores["intervals"]["overall"] is None and len(scores["rows"]) == 5
    assert scores["interval_notes"]["overall"] == "one prompt per task: no variance to estimate"
    summary = capsys.readouterr().out.split("\nsummary\n", 1)[1]
    headline = next(line for line in summary.splitlines() if line.strip().startswith("score "))
    assert f"{scores['overall']:.2f} [no interval]" in headline  # the main job's summary: the figure, no interval
