"""`calibrate` on a run the runner made and votes the Space stored on its own pairs (its names for the models and
items), then `report` showing calibrated.json beside the run's figures."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from longform_eval.inference.benchmarks import Selection, create_benchmark
from longform_eval.inference.benchmarks.rows import benchmark_rows
from longform_eval.inference.cli import main
from longform_eval.inference.runner import Run
from longform_eval.spaces.pool import ResponsePool
from longform_eval.spaces.records import Vote
from longform_eval.spaces.storage import VoteStore

VERDICTS = ("Verdict: A", "Verdict: B")


def replay(path: Path, pairs: list[tuple[str, str]]) -> Path:
    path.write_text("".join(json.dumps({"key": k, "text": t}) + "\n" for k, t in pairs), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def judged_run(tmp_path_factory) -> Path:
    """A TencentLLMEval run of 10 questions against the reference answers, judged by a recorded judge that prefers
    the model's answer in both orders on every question but the last two."""
    root = tmp_path_factory.mktemp("calibrate-run")
    benchmark = create_benchmark("tencentllmeval", "en")
    rows = Selection(limit=10, per_group=2).apply(benchmark_rows(benchmark, None), benchmark)
    model = replay(root / "model.jsonl", [(r["id"], f"A long answer {i}. " * 20) for i, r in enumerate(rows)])
    select = ["--benchmark", "tencentllmeval:en", "--per-group", "2", "--limit", "10", "--baseline", "reference"]
    out = root / "run"
    assert main(["generate", *select, "--model", f"replay:{model}", "--out", str(out)]) == 0
    run = Run.open(out, read_only=True)
    order = [row["id"] for row in run.rows]
    replies = []
    for sample_id, (text, _) in run.responses().items():
        for call in run.benchmark.judge_calls(run.by_id[sample_id], text):
            model_wins = order.index(sample_id) < 8
            replies.append((call.key, VERDICTS[(call.meta["part"] == "ab") != model_wins]))
    judge = replay(root / "judge.jsonl", replies)
    assert main(["run", *select, "--model", f"replay:{model}", "--judge", f"replay:{judge}", "--out", str(out)]) == 0
    return out


@pytest.mark.slow  # a run made by the runner (generate, judge, score) and its report: about a minute on 2 cores
def test_votes_on_the_spaces_own_pairs_calibrate_the_run_and_report_shows_them(judged_run, tmp_path, capsys):
    pool = ResponsePool.load([judged_run])
    model, reference = sorted(pool.models(), key=lambda name: name.startswith("reference"))
    store = VoteStore(tmp_path / "votes.sqlite")
    votes = []
    for i, key in enumerate(pool.items()[:6]):  # the humans disagree with the judge on half of them
        shown = (reference, model) if i % 2 else (model, reference)
        human_prefers_model = i % 3 != 0
        outcome = "A" if (shown[0] == model) == human_prefers_model else "B"
        votes.append(Vote(f"ann{i}", "s", key, *shown, "sorted", outcome, None, None, time.time(), f"t{i}"))
    store.add_votes(votes)
    capsys.readouterr()
    assert main(["calibrate", str(judged_run), "--human", str(tmp_path / "votes.sqlite")]) == 0
    figure = json.loads((judged_run / "calibrated.json").read_text())["figures"]["win_rate"]
    assert figure["n_human"] == 6 and figure["n_judge"] == 10
    scores = json.loads((judged_run / "scores.json").read_text())
    assert figure["judge_only"]["estimate"] == pytest.approx(scores["win_rate"]) == pytest.approx(0.8)
    assert figure["human_only"]["estimate"] == pytest.approx(4 / 6)
    assert figure["agreement"]["n"] == 6 and figure["ppi"] is not None
    assert main(["report", str(judged_run)]) == 0
    out = capsys.readouterr().out
    assert "Human-calibrated `win_rate`" in out and "| calibrated (PPI++) |" in out
    assert "| calibrated (PPI++) |" in (judged_run / "report.md").read_text()
