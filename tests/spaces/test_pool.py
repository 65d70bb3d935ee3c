"""Run folders as the arena reads them, including the torn last line a SIGKILLed run leaves behind."""

from __future__ import annotations

import json

import pytest

from longform_eval.spaces.app import build_app
from longform_eval.spaces.arena import Arena
from longform_eval.spaces.pool import ResponsePool
from longform_eval.spaces.storage import VoteStore


def write_run(folder, lines: list[bytes]):
    folder.mkdir(parents=True)
    path = folder / "generations.jsonl"
    path.write_bytes(b"".join(lines))
    return path


def record(sample_id: str, model: str, response: str) -> bytes:
    line = json.dumps({"sample_id": sample_id, "model": model, "response": response}, ensure_ascii=False)
    return (line + "\n").encode("utf-8")


TORN = record("chat_001", "model-c", "C, über alles")


def test_torn_and_damaged_lines_are_skipped_with_a_warning_naming_file_and_line(hellobench_rows, shared_data, tmp_path):
    first, second = [r["id"] for r in hellobench_rows if r["task"] == "chat"][:2]
    write_run(tmp_path / "runs/a", [record(first, "model-a", "A one."), record(second, "model-a", "A two.")])
    torn = write_run(
        tmp_path / "runs/b",
        [
            record(first, "model-b", "B one."),
            b"not json at all\n",
            b'{"sample_id": "x", "model": "model-b"}\n',  # parses, but has no response
            record(second, "model-b", "B two."),
            TORN[: TORN.index("ü".encode()) + 1],  # killed mid-write, inside a two-byte UTF-8 character
        ],
    )
    with pytest.warns(UserWarning) as caught:
        pool = ResponsePool.load(runs=tmp_path / "runs", source=str(shared_data / "hellobench"))
    messages = [str(w.message) for w in caught]
    assert [m.split(": skipped")[0] for m in messages] == [f"{torn}:2", f"{torn}:3", f"{torn}:5"]
    assert pool.models() == ["model-a", "model-b"]
    assert sorted(pool.items()) == sorted([first, second]) and pool.response(second, "model-b") == "B two."
    arena = Arena(pool, VoteStore(tmp_path / "v.sqlite"), seed=1)
    build_app(arena)  # the Space builds over this pool
    assert arena.new_pair("chat", "", {})[4] == "Which answer is better?"
