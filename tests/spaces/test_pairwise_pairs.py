"""A pairwise run folder offers its own comparisons (its model against its baseline: the reference answers or a
baseline run's), and a vote with no pair loaded is refused with a message; `space --runs RUN` on one TencentLLMEval
run against the reference answers stores 300 votes from 30 concurrent clients exactly."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from answering import wait_until_answers

from longform_eval.inference.benchmarks import Selection, create_benchmark
from longform_eval.inference.benchmarks.rows import benchmark_rows
from longform_eval.inference.cli import main
from longform_eval.spaces.arena import ASK, NO_PAIR, NO_SUCH_PAIR, NOT_OFFERED, VOTES, Arena
from longform_eval.spaces.pool import ResponsePool
from longform_eval.spaces.storage import VoteStore

from .conftest import free_port

REFERENCE = "reference answers (tencentllmeval:en)"
SELECT = ("--per-group", "2", "--limit", "10")


@pytest.fixture(scope="module")
def questions(shared_data) -> list[dict]:
    benchmark = create_benchmark("tencentllmeval", "en")
    return Selection(limit=10, per_group=2).apply(benchmark_rows(benchmark, None), benchmark)


def generate(out: Path, answer: str, rows: list[dict], *baseline: str) -> tuple[Path, str]:
    """A run folder made by the runner (`generate`, a replay model answering `answer` and the row's number); the
    folder and its model id."""
    replay = out.parent / f"{out.name}.jsonl"
    replay.parent.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps({"key": row["id"], "text": f"{answer} {i}."}) for i, row in enumerate(rows)]
    replay.write_text("\n".join(lines) + "\n", encoding="utf-8")
    benchmark = ["--benchmark", "tencentllmeval:en", *SELECT, *baseline]
    assert main(["generate", *benchmark, "--model", f"replay:{replay}", "--out", str(out)]) == 0
    return out, f"replay:{replay}"


@pytest.fixture(scope="module")
def reference_run(questions, tmp_path_factory) -> tuple[Path, str]:
    """One TencentLLMEval run against the reference answers (its default baseline, named here all the same)."""
    return generate(tmp_path_factory.mktemp("tencent") / "run", "Model answer", questions, "--baseline", "reference")


def keys(rows: list[dict]) -> list[str]:
    return sorted(f"tencentllmeval:en/{row['id']}" for row in rows)


def test_a_run_against_the_reference_answers_alone_offers_its_comparisons(reference_run, questions, tmp_path):
    run, model = reference_run
    pool = ResponsePool.load([run])
    assert pool.models() == sorted([model, REFERENCE]) and pool.items() == keys(questions)
    for row in questions:
        key = f"tencentllmeval:en/{row['id']}"
        assert pool.responses[key] == {model: pool.responses[key][model], REFERENCE: row["reference_answer"]}
        assert pool.responses[key][model].startswith("Model answer ")

    arena = Arena(pool, VoteStore(tmp_path / "v.sqlite"), seed=0)
    prompt, left, right, state, status = arena.new_pair("", "", {})
    assert status == ASK and {state["model_a"], state["model_b"]} == {model, REFERENCE}
    assert prompt.startswith(pool.item(state["item_id"]).heading()) and left and right
    reveal = arena.vote("A is better", "ann", state)
    assert reveal.startswith("You voted") and "reference answers" in reveal
    (vote,) = arena.store.votes()
    assert (vote.item_id, vote.model_a, vote.model_b, vote.outcome) == (
        state["item_id"],
        state["model_a"],
        state["model_b"],
        "A",
    )


def test_a_vote_with_no_pair_loaded_is_refused_with_a_message(reference_run, tmp_path):
    run, model = reference_run
    pool = ResponsePool.load([run])
    arena = Arena(pool, VoteStore(tmp_path / "v.sqlite"), seed=0)
    assert arena.vote("A is better", "ann", None) == NO_PAIR
    assert arena.vote("A is better", "ann", {"session": "s"}) == NO_PAIR

    *_, shown, _ = arena.new_pair("", "", {})
    *_, after, status = arena.new_pair("no such area", "", shown)  # the pair shown before is gone from the page
    assert "no question" in status and "token" not in after and "item_id" not in after
    assert arena.vote("A is better", "ann", after) == NO_PAIR

    other = next(key for key in pool.items() if key != shown["item_id"])
    assert arena.vote("A is better", "ann", shown | {"item_id": other}) == NOT_OFFERED  # a pair it holds, not offered
    assert arena.vote("A is better", "ann", shown | {"model_b": "gpt-5"}) == NO_SUCH_PAIR
    assert arena.vote("A is better", "ann", shown | {"item_id": "tencentllmeval:en/nothing"}) == NO_SUCH_PAIR
    assert arena.vote("A is better", "ann", shown | {"model_a": shown["model_b"]}) == NO_SUCH_PAIR
    assert arena.vote("A is better", "ann", shown | {"token": "0" * 56}) == NOT_OFFERED
    assert arena.vote("A is better", "ann", shown | {"token": 7}) == NOT_OFFERED
    restarted = Arena(pool, arena.store, seed=0)  # a state from before a restart
    assert restarted.vote("A is better", "ann", shown) == NOT_OFFERED
    assert arena.store.count() == 0
    assert arena.vote("A is better", "ann", shown).startswith("You voted") and arena.store.count() == 1


def test_a_run_against_a_baseline_run_pairs_with_it_and_both_folders_give_one_model_each(questions, tmp_path):
    baseline, baseline_model = generate(tmp_path / "B", "Baseline answer", questions)
    run, model = generate(tmp_path / "A", "Model answer", questions, "--baseline", str(baseline))
    alone = ResponsePool.load([run])
    assert alone.models() == sorted([model, baseline_model]) and alone.items() == keys(questions)
    assert all(alone.response(key, baseline_model).startswith("Baseline answer ") for key in alone.items())
    both = ResponsePool.load([run, baseline])  # B's own answers and A's baseline are one source: one model
    assert both.models() == sorted([model, baseline_model, REFERENCE])
    assert all(len(both.responses[key]) == 3 for key in both.items())

    (baseline / "generations.jsonl").write_text("", encoding="utf-8")  # the baseline lost its answers
    with pytest.warns(UserWarning, match=f"{run}: its baseline skipped .*no generations"):
        damaged = ResponsePool.load([run])
    assert damaged.models() == [model] and damaged.items() == []  # the run's own answers still load


@pytest.mark.slow
def test_space_runs_one_reference_run_300_votes_from_30_clients_are_stored_exactly(reference_run, questions, tmp_path):
    from gradio_client import Client

    run, model = reference_run
    db, port = tmp_path / "votes.sqlite", free_port()
    command = [sys.executable, "-m", "longform_eval.inference", "space", "--runs", str(run), "--db", str(db)]
    process = subprocess.Popen(
        [*command, "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=os.environ | {"GRADIO_SERVER_NAME": "127.0.0.1"},
    )
    url = f"http://127.0.0.1:{port}/"
    labels = list(VOTES)
    try:
        wait_until_answers(process, url, time.monotonic() + 180)
        # plain HTTP on this machine: ssl_verify=False spares gradio_client a certificate load per request (40 ms)
        assert Client(url, verbose=False, ssl_verify=False).predict("ann", api_name="/vote_A") == NO_PAIR

        def client(number: int) -> list[str]:
            session = Client(url, verbose=False, ssl_verify=False)
            reveals = []
            for i in range(10):
                *_, status = session.predict("", "", api_name="/new_pair")
                assert status == ASK
                endpoint = f"/vote_{VOTES[labels[(number + i) % 4]]}"
                reveals.append(session.predict(f"client{number}", api_name=endpoint))
            return reveals

        with ThreadPoolExecutor(30) as workers:
            batches = [workers.submit(client, n) for n in range(30)]
            reveals = [r for batch in batches for r in batch.result(timeout=400)]
    finally:
        process.terminate()
        process.wait(timeout=30)
    assert len(reveals) == 300 and all(r.startswith("You voted") for r in reveals)

    votes = VoteStore(db).votes()
    assert len(votes) == 300 and len({v.token for v in votes}) == 300
    assert Counter(v.annotator for v in votes) == {f"client{n}": 10 for n in range(30)}
    cast = Counter(VOTES[labels[(n + i) % 4]] for n in range(30) for i in range(10))
    assert Counter(v.outcome for v in votes) == cast
    assert {v.item_id for v in votes} <= set(keys(questions))
    assert all({v.model_a, v.model_b} == {model, REFERENCE} for v in votes)
    assert all(v.order_shown == ("sorted" if v.model_a < v.model_b else "swapped") for v in votes)
