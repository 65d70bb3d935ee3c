"""SIGTERM stops a Space promptly, started as the Hub starts it (`python app.py` in its folder as `publish --stage`
writes it): the arena with a vote stored and another one waiting on a judge that hangs exits within seconds with the
stored vote on disk, and a metric Space exits within seconds while a computation runs."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from answering import wait_until_answers
from gradio_client import Client
from hub import staged_spaces
from hub.staged_spaces import OFFLINE
from inference.fault_server import FaultServer

from longform_eval.spaces.storage import VoteStore

from .conftest import free_port
from .test_bounded_spaces import battles, texts

staged = staged_spaces.staged  # the fixture: `publish --stage` of every Space
PROMPT_EXIT_S = 12.0  # the stop's grace (3 s) and the Hub-free hooks, with room for a busy machine


def start(folder: Path, env: dict[str, str], log: Path) -> tuple[subprocess.Popen, str]:
    """`python app.py` in `folder`, nothing of the checkout on the path but the installed package; once it answers."""
    port = free_port()
    env = os.environ | OFFLINE | env | {"PYTHONPATH": "", "GRADIO_SERVER_NAME": "127.0.0.1"}
    with open(log, "w", encoding="utf-8") as output:
        process = subprocess.Popen(
            [sys.executable, "app.py"],
            cwd=folder,
            env=env | {"GRADIO_SERVER_PORT": str(port)},
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}/"
    wait_until_answers(process, url, time.monotonic() + 180, log)
    return process, url


def stopped_within(process: subprocess.Popen, log: Path) -> float:
    """SIGTERM to `process`; the seconds it took to exit (it is killed if it has not after PROMPT_EXIT_S * 5)."""
    began = time.monotonic()
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=PROMPT_EXIT_S * 5)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=30)
    took = time.monotonic() - began
    assert process.returncode in (0, -signal.SIGTERM), log.read_text(encoding="utf-8")[-3000:]
    return took


@pytest.mark.slow
def test_sigterm_stops_the_arena_within_seconds_with_its_votes_on_disk(staged, zh_runs, tmp_path):
    db, log = tmp_path / "votes.sqlite", tmp_path / "arena.log"
    with FaultServer() as judge:
        env = {
            "LONGFORM_EVAL_RUNS": os.pathsep.join(map(str, zh_runs)),
            "LONGFORM_EVAL_DB": str(db),
            "LONGFORM_EVAL_JUDGE": "openai:m",
            "LONGFORM_EVAL_JUDGE_ARGS": f"base_url={judge.url} max_attempts=1 timeout=300",
        }
        process, url = start(staged / "longform-eval-arena", env, log)
        try:
            client = Client(url, verbose=False)
            client.predict("", "", api_name="/new_pair")
            assert client.predict("first", api_name="/vote_A").startswith("You voted")
            judge.service_time = 600  # the judge hangs from now on
            client.predict("", "", api_name="/new_pair")
            waiting = client.submit("second", api_name="/vote_B")
            deadline = time.monotonic() + 30
            while judge.in_flight == 0 and time.monotonic() < deadline:
                time.sleep(0.1)
            assert judge.in_flight and not waiting.done()  # the second vote waits on the judge
        finally:
            took = stopped_within(process, log)
    assert took < PROMPT_EXIT_S, log.read_text(encoding="utf-8")[-3000:]
    assert [(v.annotator, v.outcome) for v in VoteStore(db).votes()] == [("first", "A")]
    assert "SIGTERM: stopping" in log.read_text(encoding="utf-8")


@pytest.mark.slow
def test_sigterm_stops_a_metric_space_within_seconds_while_it_computes(staged, tmp_path):
    log = tmp_path / "pairwise.log"
    process, url = start(staged / "pairwise", {}, log)
    try:
        labels, model_a, model_b = battles(2_000, 20)
        others = {"model_a": model_a, "model_b": model_b, "bootstrap_rounds": 1_000}  # the most the ceilings allow
        client, before = Client(url, verbose=False), children(process)
        computing = client.submit(*texts(labels, labels, others), api_name="/compute")
        deadline = time.monotonic() + 30
        while children(process) == before and time.monotonic() < deadline:  # until its computation's process runs
            time.sleep(0.05)
        assert not computing.done()
    finally:
        took = stopped_within(process, log)
    assert took < PROMPT_EXIT_S, log.read_text(encoding="utf-8")[-3000:]
    assert children(process) == []  # its computation's process is gone too


def children(process: subprocess.Popen) -> list[str]:
    """The process ids of `process`'s children."""
    return subprocess.run(["pgrep", "-P", str(process.pid)], capture_output=True, text=True).stdout.split()


def test_the_stop_hooks_run_before_the_exit():
    """What the arena's hook does (the last push of its votes) comes before the process exits."""
    code = (
        "from longform_eval.metric.space_serving import BoundedBlocks\n"
        "import signal, os\n"
        "app = BoundedBlocks()\n"
        "app.on_stop.append(lambda: print('pushed', flush=True))\n"
        "app._queue = type('Q', (), {'close': lambda self: None, 'active_jobs': [None]})()\n"
        "app.stop(signal.SIGTERM, None)\n"
        "print('not reached')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.splitlines() == ["SIGTERM: stopping", "pushed"], done.stderr
