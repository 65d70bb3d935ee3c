from __future__ import annotations

import os
import subprocess
import sys
import time

from answering import wait_until_answers

from longform_eval.inference.backends.base import Result
from longform_eval.metric.pairwise import Outcome
from longform_eval.spaces.arena import Arena
from longform_eval.spaces.judging import ArenaJudge
from longform_eval.spaces.storage import VoteStore

from .conftest import free_port


class PositionBiasedJudge:
    """Always prefers the answer shown first: the case the both-orders protocol exists for."""

    name = "biased"

    def __init__(self):
        self.prompts = []

    def generate(self, requests, config, on_result=None):
        self.prompts.extend(r.messages[1]["content"] for r in requests)
        return [Result(r.key, "Reasons...\nVerdict: A", "stop", 1, 1, 0.0) for r in requests]


def test_judge_is_asked_in_both_orders_and_a_flip_is_reported(small_pool, tmp_path):
    judge = PositionBiasedJudge()
    arena = Arena(small_pool, VoteStore(tmp_path / "v.sqlite"), ArenaJudge(judge), seed=1)
    _, _, _, state, _ = arena.new_pair("", "", {})
    reveal = arena.vote("B is better", "ann", state)
    first, second = judge.prompts
    a, b = (
        small_pool.response(state["item_id"], state["model_a"]),
        small_pool.response(state["item_id"], state["model_b"]),
    )
    assert first.index(a) < first.index(b) and second.index(b) < second.index(a)
    assert "flipped when the answers were swapped" in reveal
    vote = arena.store.votes()[0]
    assert vote.judge_flipped is True and vote.judge_outcome == Outcome.EQUALLY_GOOD.value
    assert vote.outcome == "B"


def test_space_command_serves_the_app_where_gradio_server_name_says(tmp_path, shared_data):
    """A deployed Space sets GRADIO_SERVER_NAME/PORT; an explicit --port still wins over the variable."""
    port = free_port()
    environ = os.environ | {"GRADIO_SERVER_NAME": "127.0.0.2", "GRADIO_SERVER_PORT": str(free_port())}
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "longform_eval.inference",
            "space",
            "--released",
            str(shared_data / "hellobench/generations/main_exp"),
            "--db",
            str(tmp_path / "v.sqlite"),
            "--port",
            str(port),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=environ,
    )
    try:
        wait_until_answers(process, f"http://127.0.0.2:{port}/", time.monotonic() + 120)
        assert (tmp_path / "v.sqlite").is_file()
    finally:
        process.terminate()
        process.wait(timeout=30)
