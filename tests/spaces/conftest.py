from __future__ import annotations

import random
import socket

import pytest

from longform_eval.dataset_builder import hellobench
from longform_eval.spaces.app import build_app, launch
from longform_eval.spaces.arena import Arena
from longform_eval.spaces.pool import ResponsePool
from longform_eval.spaces.storage import VoteStore

HOSTILE = (
    "Intro text.\n\n<script>window.__owned = 1; alert('xss')</script>\n\n"
    '<img src="x" onerror="window.__owned = 2; alert(\'img\')">\n\n'
    "[click me](javascript:window.__owned=3) and [ok link](https://example.org)\n\n**bold stays bold**"
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def hellobench_rows(shared_data):
    tables = hellobench.build_tables(shared_data / "hellobench")
    return next(t.rows for t in tables if t.name == "all")


def pool_of(rows) -> ResponsePool:
    """Three models on three chat prompts; one answer is hostile markup."""
    ids = [r["id"] for r in rows if r["task"] == "chat"][:3]
    responses = {i: {"model-x": f"X answers {i}.", "model-y": f"Y answers {i}.", "model-z": HOSTILE} for i in ids}
    return ResponsePool(rows, responses)


@pytest.fixture
def small_pool(hellobench_rows):
    return pool_of(hellobench_rows)


@pytest.fixture(scope="session")
def launched_app(hellobench_rows, tmp_path_factory):
    """One app for the whole session, started as the Space starts it: `launch`, address from GRADIO_SERVER_*."""
    arena = Arena(pool_of(hellobench_rows), VoteStore(tmp_path_factory.mktemp("app") / "votes.sqlite"))
    app = build_app(arena)
    port = free_port()
    environ = {"GRADIO_SERVER_NAME": "127.0.0.1", "GRADIO_SERVER_PORT": str(port)}
    launch(app, environ=environ, prevent_thread_lock=True, quiet=True)
    try:
        yield arena, f"http://127.0.0.1:{port}/"
    finally:
        app.close()


@pytest.fixture
def running_app(launched_app, tmp_path):
    """The session's app with an empty vote store and the same random sequence (seed 3) in every test."""
    arena, url = launched_app
    arena.store = VoteStore(tmp_path / "votes.sqlite")
    arena.rng = random.Random(3)
    return arena, url
