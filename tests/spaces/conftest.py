from __future__ import annotations

import socket

import pytest

from longform_eval.dataset_builder import hellobench
from longform_eval.spaces.app import Arena, build_app
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


@pytest.fixture
def small_pool(hellobench_rows):
    """Three models on three chat prompts; one answer is hostile markup."""
    ids = [r["id"] for r in hellobench_rows if r["task"] == "chat"][:3]
    responses = {i: {"model-x": f"X answers {i}.", "model-y": f"Y answers {i}.", "model-z": HOSTILE} for i in ids}
    return ResponsePool(hellobench_rows, responses)


@pytest.fixture
def running_app(small_pool, tmp_path):
    arena = Arena(small_pool, VoteStore(tmp_path / "votes.sqlite"), seed=3)
    app = build_app(arena)
    port = free_port()
    app.launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, quiet=True)
    try:
        yield arena, f"http://127.0.0.1:{port}/"
    finally:
        app.close()
