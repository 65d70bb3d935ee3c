from __future__ import annotations

import json
import random
import socket
from pathlib import Path

import pytest

from longform_eval.dataset_builder import hellobench
from longform_eval.inference.benchmarks import create_benchmark
from longform_eval.inference.benchmarks.rows import benchmark_rows
from longform_eval.inference.cli import main as cli_main
from longform_eval.spaces.app import build_app, launch
from longform_eval.spaces.arena import Arena
from longform_eval.spaces.items import item_of
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
def hellobench_dataset(shared_data, tmp_path_factory) -> Path:
    """HelloBench built as `publish` releases it, with its config `released_responses`."""
    return hellobench.build(source=shared_data / "hellobench", out=tmp_path_factory.mktemp("hb") / "hellobench")


@pytest.fixture(scope="session")
def hellobench_rows(shared_data):
    tables = hellobench.build_tables(shared_data / "hellobench")
    return next(t.rows for t in tables if t.name == "all")


def pool_of(rows) -> ResponsePool:
    """Three models on three chat prompts; one answer is hostile markup."""
    items = [item_of(create_benchmark("hellobench", "all"), row) for row in rows]
    keys = [item.key for item in items if item.group == "chat"][:3]
    responses = {k: {"model-x": f"X answers {k}.", "model-y": f"Y answers {k}.", "model-z": HOSTILE} for k in keys}
    return ResponsePool(items, responses)


def import_run(out: Path, benchmark: str, responses: dict[str, str], name: str) -> Path:
    """A run folder made by the runner itself: `longform-eval import-generations` of a JSON Lines file."""
    out.parent.mkdir(parents=True, exist_ok=True)
    source = out.parent / f"{out.name}.jsonl"
    lines = [json.dumps({"id": i, "response": r}, ensure_ascii=False) for i, r in responses.items()]
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert (
        cli_main(["import-generations", str(source), "--out", str(out), "--benchmark", benchmark, "--name", name]) == 0
    )
    return out


@pytest.fixture(scope="session")
def zh_rows(shared_data):
    """Three Chinese LongBench-Write prompts, as the runner reads them."""
    rows = benchmark_rows(create_benchmark("longbench_write", "all"), None)
    return [row for row in rows if row["language"] == "zh"][:3]


@pytest.fixture(scope="session")
def zh_runs(zh_rows, tmp_path_factory) -> list[Path]:
    """Two run folders of LongBench-Write (config all) with answers of two writers to the same Chinese prompts."""
    root = tmp_path_factory.mktemp("zh-runs")
    return [
        import_run(
            root / writer,
            "longbench_write:all",
            {
                row["id"]: f"{writer} 的回答：关于「{row['prompt'][:12]}」，这里是第{i + 1}篇短文。"
                for i, row in enumerate(zh_rows)
            },
            writer,
        )
        for writer in ("writer-a", "writer-b")
    ]


@pytest.fixture
def small_pool(hellobench_rows):
    return pool_of(hellobench_rows)


def serve(arena: Arena):
    """Start `arena` as the Space starts it (`launch`, address from GRADIO_SERVER_*); yields (arena, url)."""
    app = build_app(arena)
    port = free_port()
    environ = {"GRADIO_SERVER_NAME": "127.0.0.1", "GRADIO_SERVER_PORT": str(port)}
    launch(app, environ=environ, prevent_thread_lock=True, quiet=True)
    try:
        yield arena, f"http://127.0.0.1:{port}/"
    finally:
        app.close()


@pytest.fixture(scope="session")
def launched_app(hellobench_rows, tmp_path_factory):
    """One app for the whole session over three HelloBench chat prompts."""
    yield from serve(Arena(pool_of(hellobench_rows), VoteStore(tmp_path_factory.mktemp("app") / "votes.sqlite")))


@pytest.fixture(scope="session")
def zh_app(zh_runs, tmp_path_factory):
    """The app started on two LongBench-Write run folders of Chinese answers, as `longform-eval space --runs A B`."""
    from longform_eval.spaces.app import arena_from_settings

    yield from serve(arena_from_settings(zh_runs, db=str(tmp_path_factory.mktemp("zh-app") / "votes.sqlite")))


@pytest.fixture
def running_app(launched_app, tmp_path):
    """The session's app with an empty vote store and the same random sequence (seed 3) in every test."""
    arena, url = launched_app
    arena.store = VoteStore(tmp_path / "votes.sqlite")
    arena.rng = random.Random(3)
    return arena, url
