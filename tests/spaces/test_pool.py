"""Pairs from run folders of any benchmark (read with the runner's readers), released HelloBench responses, and the
damaged or unreadable folders a Space meets."""

from __future__ import annotations

import json
import random

import pytest

from longform_eval.spaces.app import build_app
from longform_eval.spaces.arena import ASK, Arena
from longform_eval.spaces.pool import ResponsePool
from longform_eval.spaces.run_folders import run_folders
from longform_eval.spaces.storage import VoteStore

from .conftest import import_run


def test_two_run_folders_of_one_benchmark_pair_up_by_sample_id(zh_runs, zh_rows, tmp_path):
    pool = ResponsePool.load(zh_runs)
    assert pool.models() == ["imported:writer-a", "imported:writer-b"]
    assert pool.items() == [f"longbench_write:all/{row['id']}" for row in zh_rows]
    assert pool.groups() == sorted({row["type"] for row in zh_rows})
    item = pool.item(pool.items()[0])
    assert (item.benchmark, item.sample_id, item.question) == (
        "longbench_write",
        zh_rows[0]["id"],
        zh_rows[0]["prompt"],
    )
    pair = pool.random_pair(random.Random(0))
    assert {pair.model_a, pair.model_b} == {"imported:writer-a", "imported:writer-b"}
    assert "的回答" in pool.response(pair.item_id, pair.model_a)

    arena = Arena(pool, VoteStore(tmp_path / "v.sqlite"), seed=0)
    build_app(arena)  # the Space builds over this pool
    prompt, left, right, state, status = arena.new_pair("", "", {})
    assert status == ASK and pool.item(state["item_id"]).question in prompt  # Chinese text as it is, unescaped
    assert prompt.startswith("**longbench\\_write · ") and "writer-" in left + right  # `_` escaped: markdown


def test_a_folder_of_run_folders_is_searched_and_an_unreadable_folder_is_named(zh_runs, tmp_path):
    stale = tmp_path / "stale"
    stale.mkdir()
    (stale / "config.yaml").write_text("schema_version: 1\nbenchmark: hellobench\n", encoding="utf-8")
    assert run_folders([zh_runs[0].parent]) == sorted(zh_runs)
    with pytest.warns(UserWarning) as caught:
        pool = ResponsePool.load([zh_runs[0].parent, stale, tmp_path / "missing"])
    messages = sorted(str(w.message) for w in caught)
    assert messages[0] == f"{tmp_path / 'missing'}: no such run folder; skipped"
    assert messages[1].startswith(f"{stale}: run folder skipped") and "schema version 1" in messages[1]
    assert len(pool.items()) == 3


def test_torn_and_damaged_lines_of_a_run_folder_are_skipped(zh_rows, tmp_path, capfd):
    responses = {row["id"]: f"答案 {row['id']}" for row in zh_rows}
    first = import_run(tmp_path / "a", "longbench_write:all", responses, "a")
    second = import_run(tmp_path / "b", "longbench_write:all", responses, "b")
    generations = second / "generations.jsonl"
    lines = generations.read_bytes().splitlines(keepends=True)
    torn = lines[-1][: lines[-1].index("答".encode()) + 1]  # killed mid-write, inside a three-byte UTF-8 character
    generations.write_bytes(lines[0] + b"not json at all\n" + b"".join(lines[1:-1]) + torn)
    pool = ResponsePool.load([first, second])
    assert f"{generations}:2: damaged record skipped" in capfd.readouterr().err
    keys = [f"longbench_write:all/{row['id']}" for row in zh_rows]
    assert pool.items() == keys[:2]  # the third answer of b was torn: only a has it
    assert pool.responses[keys[2]] == {"imported:a": f"答案 {zh_rows[2]['id']}"}


def test_released_hellobench_responses_and_a_run_folder_share_items(hellobench_rows, tmp_path):
    chat = [row for row in hellobench_rows if row["task"] == "chat"][:2]
    released = tmp_path / "released"
    for model in ("model-x", "model-y"):
        (released / model).mkdir(parents=True)
        lines = [json.dumps({"id": row["id"], "response": f"{model} on {row['id']}"}) for row in chat]
        (released / model / "chat_results.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    run = import_run(tmp_path / "runs/z", "hellobench:all", {row["id"]: "Z." for row in chat[:1]}, "model-z")
    pool = ResponsePool.load([tmp_path / "runs"], released)
    key = f"hellobench:all/{chat[0]['id']}"
    assert pool.responses[key] == {
        "model-x": f"model-x on {chat[0]['id']}",
        "model-y": f"model-y on {chat[0]['id']}",
    } | {"imported:model-z": "Z."}
    assert pool.items() == sorted([key, f"hellobench:all/{chat[1]['id']}"]) and pool.groups() == ["chat"]
    assert pool.annotatable("chat") == pool.items() and pool.item(key).checklists == tuple(chat[0]["checklists"])
    assert run in run_folders([tmp_path / "runs"])


def test_the_same_model_from_two_folders_stays_two_models(zh_rows, tmp_path):
    responses = {row["id"]: "同一个模型" for row in zh_rows}
    runs = [import_run(tmp_path / name, "longbench_write:all", responses, "same") for name in ("first", "second")]
    assert ResponsePool.load(runs).models() == ["imported:same", "imported:same (second)"]


def test_the_board_lists_the_scores_of_the_run_folders_labelled_as_judge_scores(zh_rows, tmp_path):
    from longform_eval.inference.cli import main
    from longform_eval.spaces.leaderboard import compute_board

    scored = import_run(tmp_path / "scored", "longbench_write:all", {row["id"]: "短文" for row in zh_rows}, "scored")
    unscored = import_run(tmp_path / "unscored", "longbench_write:all", {zh_rows[0]["id"]: "短文"}, "unscored")
    assert main(["score", str(scored)]) == 0
    (row,) = compute_board([], [scored, unscored]).runs  # a folder without scores.json has no row
    assert row[0] == "scored · longbench_write:all" and row[3] == len(zh_rows)  # by its `--name`; not judged
