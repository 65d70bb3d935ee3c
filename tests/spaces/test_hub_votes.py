"""Votes kept in a Hub dataset repo (LONGFORM_EVAL_VOTES_REPO): the journal, the scheduler's pushes, a restart."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import huggingface_hub.constants
import pytest
from hub_standin import FAKE_TOKEN
from huggingface_hub import HfApi

from longform_eval.spaces.app import run_paths
from longform_eval.spaces.hub_votes import HubJournal, VotesRepo, keep_votes, votes_repo
from longform_eval.spaces.journal import VoteJournal, import_records, missing_records, read_journal
from longform_eval.spaces.storage import Vote, VoteStore

from .conftest import free_port

REPO_ID = "arena-org/votes"
OUTCOMES = ("A", "B", "equally_good", "equally_bad")


def vote(i: int, **fields) -> Vote:
    return Vote(f"ann{i % 3}", "s", f"item{i}", "m1", "m2", "sorted", OUTCOMES[i % 4], token=f"t{i}", **fields)


def store_with_journal(path: Path, folder: Path) -> VoteStore:
    store = VoteStore(path, VoteJournal(folder))
    store.add_vote(vote(0, judge_outcome="B", judge_flipped=True))
    store.add_vote(vote(1, judge_outcome="unscored", judge_flipped=None))
    store.add_votes([vote(i) for i in range(2, 6)])
    store.add_vote(Vote("old", "s", "item9", "m2", "m3", "swapped", "B"))  # without a token, as schema 1 stored them
    store.add_annotation("ann", "chat_002", "report_write", "m1", [1, 0.5, 0.75], 6.5)
    store.add_annotation("ann", "chat_003", "report_write", "m2", [0.0], 2)
    return store


def test_a_journal_restores_a_fresh_store_exactly_and_a_second_import_adds_nothing(tmp_path):
    source = store_with_journal(tmp_path / "a.sqlite", tmp_path / "journal")
    assert [p.parent.name for p in sorted((tmp_path / "journal").rglob("*.jsonl"))] == ["annotations", "votes"]
    restored = VoteStore(tmp_path / "b.sqlite")
    records = read_journal(tmp_path / "journal")
    assert import_records(restored, records) == (7, 2)
    assert restored.votes() == source.votes() and restored.annotation_records() == source.annotation_records()
    assert restored.votes()[0].judge_flipped is True and restored.votes()[6].token is None
    assert import_records(restored, records) == (0, 0) and restored.count() == 7  # by token, or all fields
    assert missing_records(restored, records).votes == [] and restored.journal is None


def test_what_the_store_holds_and_the_journal_lacks_is_found(tmp_path):
    store = store_with_journal(tmp_path / "a.sqlite", tmp_path / "journal")
    store.journal = None
    store.add_vote(vote(7))
    store.add_annotation("ann", "chat_004", "summary", "m3", [1.0], 9)
    missing = missing_records(store, read_journal(tmp_path / "journal"))
    assert [row["token"] for row in missing.votes] == ["t7"] and [a["row_id"] for a in missing.annotations] == [
        "chat_004"
    ]


def test_a_damaged_line_is_skipped_with_a_warning_naming_the_file_and_line(tmp_path):
    store_with_journal(tmp_path / "a.sqlite", tmp_path / "journal")
    good = next((tmp_path / "journal/votes").glob("*.jsonl"))
    first = json.loads(good.read_text().splitlines()[0])
    lines = [
        json.dumps(first | {"token": "u1"}),
        "not json at all",
        json.dumps(first | {"token": "u2", "outcome": "maybe"}),
        json.dumps(first | {"token": "u3", "annotator": "bad\nid"}),
        json.dumps(first | {"token": "u4", "surprise": 1}),
        json.dumps(first | {"token": "u5", "created": "yesterday"}),
        "",
        json.dumps(first | {"token": "u6"})[:-9],  # a torn last line
    ]
    (tmp_path / "journal/votes/damaged.jsonl").write_text("\n".join(lines), encoding="utf-8")
    with pytest.warns(UserWarning) as caught:
        records = read_journal(tmp_path / "journal", "hf://datasets/arena-org/votes")
    where = "hf://datasets/arena-org/votes/votes/damaged.jsonl line"
    messages = [str(w.message) for w in caught]
    assert [m[: m.index(": skipped")] for m in messages] == [f"{where} {n}" for n in (2, 3, 4, 5, 6, 8)]
    assert "unknown outcome 'maybe'" in messages[1] and "annotator id contains control characters" in messages[2]
    assert "u1" in {row["token"] for row in records.votes} and len(records.votes) == 8


@pytest.mark.parametrize(
    ("value", "paths"),
    [
        ("runs/A:runs/B:", ["runs/A", "runs/B"]),
        ("hf://datasets/org/runs", ["hf://datasets/org/runs"]),
        (
            "runs/A:hf://datasets/org/runs/a:hf://datasets/org/x@v1/b",
            ["runs/A", "hf://datasets/org/runs/a", "hf://datasets/org/x@v1/b"],
        ),
        (
            "hf://datasets/org/runs/a\nhf://datasets/org/runs/b\n",
            ["hf://datasets/org/runs/a", "hf://datasets/org/runs/b"],
        ),
        ("", []),
    ],
)
def test_runs_from_the_variable_keep_hub_paths_whole(value, paths):
    assert run_paths(value) == paths


@pytest.mark.parametrize(
    ("environ", "setting"),
    [
        ({}, None),
        ({"LONGFORM_EVAL_VOTES_REPO": " "}, None),
        ({"LONGFORM_EVAL_VOTES_REPO": "org/votes"}, VotesRepo("org/votes", 5.0)),
        ({"LONGFORM_EVAL_VOTES_REPO": "org/votes", "LONGFORM_EVAL_VOTES_EVERY": "0.5"}, VotesRepo("org/votes", 0.5)),
    ],
)
def test_the_votes_repo_setting(environ, setting):
    assert votes_repo(environ) == setting


@pytest.mark.parametrize(
    ("environ", "message"),
    [
        (
            {"LONGFORM_EVAL_VOTES_REPO": "votes"},
            "LONGFORM_EVAL_VOTES_REPO must be a dataset repo id ORG/NAME, not 'votes'",
        ),
        ({"LONGFORM_EVAL_VOTES_REPO": "hf://datasets/o/v"}, "LONGFORM_EVAL_VOTES_REPO must be a dataset repo id"),
        (
            {"LONGFORM_EVAL_VOTES_REPO": "o/v", "LONGFORM_EVAL_VOTES_EVERY": "0"},
            "LONGFORM_EVAL_VOTES_EVERY must be a positive",
        ),
        ({"LONGFORM_EVAL_VOTES_REPO": "o/v", "LONGFORM_EVAL_VOTES_EVERY": "soon"}, "not 'soon'"),
        ({"LONGFORM_EVAL_VOTES_REPO": "o/v", "LONGFORM_EVAL_VOTES_EVERY": "nan"}, "LONGFORM_EVAL_VOTES_EVERY"),
    ],
)
def test_a_bad_votes_repo_setting_is_named(environ, message):
    with pytest.raises(ValueError, match=message):
        votes_repo(environ)


@pytest.fixture
def online(monkeypatch, tmp_path):
    """huggingface_hub in this process online (to call the stand-in only), with a cache of its own."""
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path / "hf-cache"))


@pytest.fixture
def hub_api(hub, online):
    """An HfApi of the stand-in and `keep_votes` through it; schedulers stopped after the test so that their atexit
    pushes do not call a stand-in that is gone."""
    journals: list[HubJournal] = []
    api = HfApi(endpoint=hub.url, token=FAKE_TOKEN)

    def keep(store: VoteStore) -> HubJournal:
        journals.append(keep_votes(store, VotesRepo(REPO_ID, every=60), api))
        return journals[-1]

    yield api, keep
    for journal in journals:
        journal.scheduler.stop()


def lines_in(files: dict[str, bytes], kind: str) -> list[dict]:
    """Every record in the repo's files of `kind`; each file must end with a whole line."""
    found = []
    for path, data in files.items():
        if path.startswith(f"{kind}/"):
            assert data.endswith(b"\n"), f"{path} ends with a torn line"
            found += [json.loads(line) for line in data.decode().splitlines()]
    return found


def test_votes_stored_while_the_scheduler_pushes_are_neither_lost_nor_torn(hub, hub_api, tmp_path):
    _, keep = hub_api
    store = VoteStore(tmp_path / "a.sqlite")
    journal = keep(store)
    assert hub.is_private(REPO_ID)

    def cast(thread: int) -> None:
        for i in range(40):
            store.add_vote(vote(100 * thread + i))
        if thread == 0:
            store.add_annotation("ann", "chat_002", "report_write", "m1", [1, 0.5], 7)

    threads = [threading.Thread(target=cast, args=(t,)) for t in range(6)]
    for t in threads:
        t.start()
    pushes = 0
    while any(t.is_alive() for t in threads):
        journal.scheduler.trigger().result()
        pushes += 1
    journal.push()
    commits = hub.commits(REPO_ID)
    assert pushes >= 2 and len(commits) >= 3  # the initial commit, pushes while voting, the last one
    for commit in commits:  # every commit holds whole lines only
        lines_in(hub.files(REPO_ID, revision=commit["oid"]), "votes")
    pushed = lines_in(hub.files(REPO_ID), "votes")
    assert len(pushed) == 240 and {v["token"] for v in pushed} == {v.token for v in store.votes()}

    restored = VoteStore(tmp_path / "b.sqlite")
    keep(restored)
    assert restored.votes() == sorted(store.votes(), key=lambda v: v.created)
    assert restored.annotation_records() == store.annotation_records()


def test_votes_on_this_disk_that_the_repo_lacks_are_added_to_it(hub, hub_api, tmp_path):
    api, keep = hub_api
    store = VoteStore(tmp_path / "a.sqlite")
    store.add_votes([vote(i) for i in range(3)])  # a database kept on persistent storage, written before the repo
    api.create_repo(REPO_ID, repo_type="dataset", private=True)
    api.upload_file(
        path_or_fileobj=b'{"annotator": "x"}\n',
        path_in_repo="votes/damaged.jsonl",
        repo_id=REPO_ID,
        repo_type="dataset",
    )
    with pytest.warns(UserWarning, match=f"hf://datasets/{REPO_ID}/votes/damaged.jsonl line 1: skipped"):
        journal = keep(store)
    journal.push()
    files = hub.files(REPO_ID)
    assert files.pop("votes/damaged.jsonl") == b'{"annotator": "x"}\n'  # left as it was
    assert sorted(v["token"] for v in lines_in(files, "votes")) == ["t0", "t1", "t2"]


def test_keeping_votes_needs_a_token(hub, hub_api, tmp_path, monkeypatch):
    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.setattr(huggingface_hub.constants, "HF_TOKEN_PATH", str(tmp_path / "no-token"))
    with pytest.raises(ValueError, match="LONGFORM_EVAL_VOTES_REPO=arena-org/votes needs a token"):
        keep_votes(VoteStore(tmp_path / "a.sqlite"), VotesRepo(REPO_ID), HfApi(endpoint=hub.url))
    assert hub.repos() == []


# The Space itself, in a subprocess, restarted on an empty disk


def upload_runs(hub, zh_runs: list[Path]) -> str:
    """The two run folders in a dataset repo of the stand-in; LONGFORM_EVAL_RUNS naming them as hf:// paths."""
    api = HfApi(endpoint=hub.url, token=FAKE_TOKEN)
    api.create_repo("arena-org/runs", repo_type="dataset")
    for run in zh_runs:
        api.upload_folder(folder_path=run, path_in_repo=run.name, repo_id="arena-org/runs", repo_type="dataset")
    return os.pathsep.join(f"hf://datasets/arena-org/runs/{run.name}" for run in zh_runs)


def start_space(hub, disk: Path, runs: str, every: str) -> tuple[subprocess.Popen, str]:
    """`python app.py` as a Space runs it, on `disk` (a new folder: database, Hugging Face cache, temp files)."""
    port = free_port()
    env = hub.env(disk / "hf") | {
        "LONGFORM_EVAL_VOTES_REPO": REPO_ID,
        "LONGFORM_EVAL_VOTES_EVERY": every,
        "LONGFORM_EVAL_RUNS": runs,
        "LONGFORM_EVAL_DB": str(disk / "votes.sqlite"),
        "GRADIO_SERVER_NAME": "127.0.0.1",
        "GRADIO_SERVER_PORT": str(port),
        "TMPDIR": str(disk / "tmp"),
    }
    (disk / "tmp").mkdir(parents=True)
    process = subprocess.Popen(
        [sys.executable, "-m", "longform_eval.spaces.app"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=env,
    )
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + 90
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                assert response.status == 200
                return process, url
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                raise AssertionError(process.communicate(timeout=30)[0].decode()[-3000:]) from None
            time.sleep(0.3)


def cast(url: str, count: int, annotator: str) -> None:
    from gradio_client import Client

    client = Client(url, verbose=False)
    for i in range(count):
        client.predict("", "", api_name="/new_pair")
        assert client.predict(annotator, api_name=f"/vote_{OUTCOMES[i % 4]}").startswith("You voted")


def shown_votes(url: str) -> str:
    from gradio_client import Client

    summary, *_ = Client(url, verbose=False).predict(api_name="/leaderboard")
    return summary.split("**")[1]


def stop(process: subprocess.Popen, how: signal.Signals) -> str:
    process.send_signal(how)
    output = process.communicate(timeout=30)[0].decode()
    assert process.returncode in (0, -how), output[-3000:]
    return output


def pushed_tokens(hub) -> list[str]:
    return [v["token"] for v in lines_in(hub.files(REPO_ID), "votes")]


@pytest.mark.slow
def test_the_space_keeps_its_votes_across_a_restart_on_an_empty_disk(hub, online, zh_runs, tmp_path):
    runs = upload_runs(hub, zh_runs)
    first, url = start_space(hub, tmp_path / "disk1", runs, every="60")  # no scheduled push during the test
    try:
        cast(url, 20, "alice")
        assert shown_votes(url) == "20 human votes" and pushed_tokens(hub) == []
    finally:
        output = stop(first, signal.SIGTERM)
    assert "0 votes and 0 annotations restored" in output and hub.is_private(REPO_ID)
    kept = VoteStore(tmp_path / "disk1/votes.sqlite").votes()
    assert sorted(pushed_tokens(hub)) == sorted(v.token for v in kept) and len(kept) == 20  # pushed on SIGTERM

    second, url = start_space(hub, tmp_path / "disk2", runs, every="0.05")  # a push every 3 s
    try:
        assert shown_votes(url) == "20 human votes"
        assert VoteStore(tmp_path / "disk2/votes.sqlite").votes() == kept  # exactly: tokens, times, all fields
        cast(url, 5, "bob")
        deadline = time.monotonic() + 30
        while len(pushed_tokens(hub)) < 25 and time.monotonic() < deadline:
            time.sleep(0.1)
        before_kill = set(pushed_tokens(hub))
        cast(url, 3, "carol")  # after that push: what a SIGKILL may lose (unless the next push comes first)
    finally:
        stop(second, signal.SIGKILL)
    stored = {v.token: v.annotator for v in VoteStore(tmp_path / "disk2/votes.sqlite").votes()}
    pushed = set(pushed_tokens(hub))
    assert len(before_kill) == 25 and before_kill <= pushed <= set(stored) and len(stored) == 28
    assert {stored[token] for token in set(stored) - pushed} <= {"carol"}  # lost: only votes since the last push
    assert len([p for p in hub.files(REPO_ID) if p.startswith("votes/")]) == 2  # one file per process start
