"""The Space on the Hub: run folders from `hf://` entries, votes kept in a repo across a restart (a subprocess, as a
Space runs it), a public votes repo refused, `space-export --push-to`."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from answering import wait_until_answers
from hub_standin import FAKE_TOKEN
from huggingface_hub import HfApi

from longform_eval.inference.cli import main as cli_main
from longform_eval.spaces.app import arena_from_settings, run_paths
from longform_eval.spaces.export import EXPORT_FILES
from longform_eval.spaces.storage import VoteStore

from .conftest import free_port
from .hub_votes_support import OUTCOMES, REPO_ID, go_online, pushed_tokens, upload_runs, vote


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


def test_space_export_pushes_to_a_private_repo_and_refuses_a_public_one(hub, tmp_path, monkeypatch, capsys):
    go_online(monkeypatch, tmp_path)
    hub.patch_client(monkeypatch)
    monkeypatch.setenv("HF_TOKEN", FAKE_TOKEN)
    store = VoteStore(tmp_path / "votes.sqlite")
    store.add_votes([vote(i) for i in range(3)])
    export = ["space-export", "--db", str(store.path), "--out"]
    assert cli_main([*export, str(tmp_path / "export"), "--push-to", "arena-org/export"]) == 0
    assert hub.is_private("arena-org/export")
    assert hub.files("arena-org/export") == {name: (tmp_path / "export" / name).read_bytes() for name in EXPORT_FILES}
    HfApi(endpoint=hub.url, token=FAKE_TOKEN).create_repo("arena-org/public", repo_type="dataset")
    capsys.readouterr()
    assert cli_main([*export, str(tmp_path / "export2"), "--push-to", "arena-org/public"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("longform-eval space-export: error: --push-to arena-org/public: the dataset repo")
    assert "is public" in err and err.count("\n") == 1 and len(hub.commits("arena-org/public")) == 1


def test_a_hub_run_entry_that_cannot_be_fetched_is_skipped_with_a_warning(hub, zh_runs, tmp_path, monkeypatch):
    go_online(monkeypatch, tmp_path)
    hub.patch_client(monkeypatch)
    good = upload_runs(hub, zh_runs[:1])
    skipped = ["hf://datasets/arena-org/gone", "hf://datasets/arena-org/runs/no-such-run", "hf://models/arena-org/x"]
    with pytest.warns(UserWarning) as caught:
        arena = arena_from_settings([good, *skipped, str(zh_runs[1])], db=str(tmp_path / "votes.sqlite"))
    messages = [str(w.message) for w in caught if "run folder skipped" in str(w.message)]
    assert [m.split(": run folder skipped")[0] for m in messages] == skipped
    assert "(no dataset repo arena-org/gone on http" in messages[0] and "(no 'no-such-run' in" in messages[1]
    assert sorted(arena.pool.models()) == ["imported:writer-a", "imported:writer-b"]  # what could be read


def test_the_space_refuses_a_public_votes_repo_in_one_line(hub, zh_runs, tmp_path, monkeypatch):
    go_online(monkeypatch, tmp_path)
    HfApi(endpoint=hub.url, token=FAKE_TOKEN).create_repo(REPO_ID, repo_type="dataset")  # public
    (tmp_path / "tmp").mkdir()
    env = hub.env(tmp_path / "hf") | {
        "LONGFORM_EVAL_VOTES_REPO": REPO_ID,
        "LONGFORM_EVAL_RUNS": str(zh_runs[0]),
        "LONGFORM_EVAL_DB": str(tmp_path / "votes.sqlite"),
        "TMPDIR": str(tmp_path / "tmp"),
    }
    space = [sys.executable, "-m", "longform_eval.spaces.app"]
    result = subprocess.run(space, capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr[-3000:]
    refusal = f"longform-eval space: error: LONGFORM_EVAL_VOTES_REPO={REPO_ID}: the dataset repo {REPO_ID} is public"
    assert [line for line in result.stderr.splitlines() if "error" in line] == [result.stderr.splitlines()[-1]]
    assert result.stderr.splitlines()[-1].startswith(refusal)
    assert list((tmp_path / "tmp").iterdir()) == [] and len(hub.commits(REPO_ID)) == 1


# The Space itself, in a subprocess, restarted on an empty disk


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
    wait_until_answers(process, url, time.monotonic() + 90)
    return process, url


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


@pytest.mark.slow
def test_the_space_keeps_its_votes_across_a_restart_on_an_empty_disk(hub, zh_runs, tmp_path, monkeypatch):
    go_online(monkeypatch, tmp_path)
    runs = upload_runs(hub, zh_runs)
    first, url = start_space(hub, tmp_path / "disk1", runs, every="60")  # no scheduled push during the test
    try:
        cast(url, 20, "alice")
        assert shown_votes(url) == "20 human votes" and pushed_tokens(hub) == []
    finally:
        output = stop(first, signal.SIGTERM)
    assert "0 votes and 0 annotations restored" in output and hub.is_private(REPO_ID)
    assert list((tmp_path / "disk1/tmp").glob("longform-eval-votes-*")) == []  # its journal folder removed on exit
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
