"""Votes kept in a Hub dataset repo (LONGFORM_EVAL_VOTES_REPO): the journal, the scheduler's pushes, its folder, the
repo's privacy (the Space itself, restarted: test_space_on_hub.py)."""

from __future__ import annotations

import json
import re
import shutil
import tempfile
import threading
from pathlib import Path

import huggingface_hub.constants
import pytest
from hub_standin import FAKE_TOKEN
from huggingface_hub import HfApi

from longform_eval.spaces.hub_votes import HubJournal, VotesRepo, keep_votes, votes_repo
from longform_eval.spaces.journal import Records, VoteJournal, missing_records, read_journal
from longform_eval.spaces.records import vote_record, vote_row
from longform_eval.spaces.storage import Vote, VoteStore

from .hub_votes_support import REPO_ID, go_online, lines_in, pushed_tokens, vote


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
    restored = VoteStore(tmp_path / "b.sqlite", VoteJournal(tmp_path / "restored-journal"))
    records = read_journal(tmp_path / "journal")
    assert restored.import_records(records.votes, records.annotations) == (7, 2)
    assert restored.votes() == source.votes() and restored.annotation_records() == source.annotation_records()
    assert restored.votes()[0].judge_flipped is True and restored.votes()[6].token is None
    assert restored.import_records(records.votes, records.annotations) == (0, 0)  # by token, or all fields
    assert restored.count() == 7 and missing_records(restored, records) == Records()
    assert not (tmp_path / "restored-journal").exists()  # what is imported is kept already: not journaled again


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
            "LONGFORM_EVAL_VOTES_REPO must be a repo id ORG/NAME, not 'votes'",
        ),
        ({"LONGFORM_EVAL_VOTES_REPO": "hf://datasets/o/v"}, "LONGFORM_EVAL_VOTES_REPO must be a repo id ORG/NAME"),
        ({"LONGFORM_EVAL_VOTES_REPO": "org/votes..x"}, "LONGFORM_EVAL_VOTES_REPO must be a repo id ORG/NAME"),
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
def temp_folder(monkeypatch, tmp_path) -> Path:
    """The folder `tempfile` makes its folders in, for this test."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


@pytest.fixture
def hub_api(hub, temp_folder, monkeypatch, tmp_path):
    """An HfApi of the stand-in and `keep_votes` through it; schedulers stopped after the test (so that their atexit
    pushes do not call a stand-in that is gone) and their folders removed."""
    go_online(monkeypatch, tmp_path)
    journals: list[HubJournal] = []
    api = HfApi(endpoint=hub.url, token=FAKE_TOKEN)

    def keep(store: VoteStore) -> HubJournal:
        journals.append(keep_votes(store, VotesRepo(REPO_ID, every=60), api))
        return journals[-1]

    yield api, keep
    for journal in journals:
        journal.scheduler.stop()
        shutil.rmtree(journal.folder, ignore_errors=True)


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


def test_the_arena_says_a_token_is_missing_before_it_downloads_the_responses(hub, tmp_path, monkeypatch):
    """Issue 46: without HF_TOKEN the arena downloaded 4,501 released responses before its one-line error."""
    from longform_eval.spaces import app

    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.setattr(huggingface_hub.constants, "HF_TOKEN_PATH", str(tmp_path / "no-token"))
    fetched = []
    monkeypatch.setattr(app, "fetched", lambda runs: fetched.append(runs) or [])
    with pytest.raises(ValueError, match="LONGFORM_EVAL_VOTES_REPO=arena-org/votes needs a token"):
        app.arena_from_settings(
            ["hf://datasets/org/runs"], "org/hellobench", tmp_path / "a.sqlite", votes=VotesRepo(REPO_ID)
        )
    assert fetched == [] and hub.requests == []


def test_a_public_votes_repo_is_refused_before_a_vote_is_read_or_written(hub, hub_api, tmp_path, temp_folder):
    api, keep = hub_api
    api.create_repo(REPO_ID, repo_type="dataset")  # public
    api.upload_file(path_or_fileobj=vote_line(0), path_in_repo="votes/x.jsonl", repo_id=REPO_ID, repo_type="dataset")
    store = VoteStore(tmp_path / "a.sqlite")
    store.add_vote(vote(1))
    refusal = f"LONGFORM_EVAL_VOTES_REPO={REPO_ID}: the dataset repo {REPO_ID} is public, but votes and annotations"
    with pytest.raises(ValueError, match=refusal):
        keep(store)
    assert [v.token for v in store.votes()] == ["t1"] and store.journal is None  # nothing imported, nothing journaled
    assert len(hub.commits(REPO_ID)) == 2 and not hub.is_private(REPO_ID)  # no commit, the repo left as it was
    assert list(temp_folder.iterdir()) == []  # no scheduler, no journal folder


def vote_line(i: int) -> bytes:
    return (json.dumps(vote_record(vote_row(vote(i)))) + "\n").encode()


def test_closing_the_journal_pushes_what_is_left_and_removes_its_folder(hub, hub_api, tmp_path, temp_folder):
    _, keep = hub_api
    store = VoteStore(tmp_path / "a.sqlite")
    journal = keep(store)
    assert journal.folder.parent == temp_folder.resolve()
    store.add_votes([vote(i) for i in range(3)])
    journal.close()
    assert sorted(pushed_tokens(hub)) == ["t0", "t1", "t2"] and list(temp_folder.iterdir()) == []


def test_a_journal_whose_last_push_fails_is_kept_and_named(hub, hub_api, tmp_path):
    api, keep = hub_api
    store = VoteStore(tmp_path / "a.sqlite")
    journal = keep(store)
    store.add_vote(vote(0))
    api.delete_repo(REPO_ID, repo_type="dataset")
    kept = f"{REPO_ID}: the last votes could not be pushed .*; they are in {re.escape(str(journal.folder))}$"
    with pytest.warns(UserWarning, match=kept):
        journal.close()
    assert [json.loads(line)["token"] for line in journal.path("votes").read_text().splitlines()] == ["t0"]
