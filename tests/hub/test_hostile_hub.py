"""A hostile or broken Hub endpoint (tests/hub/hostile_hub.py, as HF_ENDPOINT) never makes the toolkit write outside
the Hugging Face cache, and each of its answers is one line naming the repo and what was wrong, exit 2, in bounded
time (issue 28, F1 and L6): a commit id, ETag, X-Repo-Commit or file path that leaves the cache, an 80 MB JSON list,
a hang, a body that is not JSON, an answer without a field."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import time
import warnings
from pathlib import Path

import huggingface_hub
import pytest
from huggingface_hub import HfApi

from longform_eval.inference.hub.client import HubAnswerError
from longform_eval.inference.hub.run_remote import RemoteRepo
from longform_eval.inference.hub.sources import local_path, parse_hub_path

from .hostile_hub import COMMIT, HostileHub

SOURCE = "hf://datasets/o/x"
RUN = {"config.yaml": b"model: m\n", "scores.json": b'{"benchmark": "hellobench"}'}
VICTIM = b'{"mine": "the user\'s own file"}\n'
HANG_TIMEOUT_S = 2
WHY = {
    "sha": "the repo's info (GET /api/datasets/o/x) names the commit '../../../../victim', which is not 40 hex digits",
    "etag": "has the ETag '../../../../victim.json', which is no file name",
    "commit-header": "the X-Repo-Commit header of the answer to HEAD /datasets/o/x/resolve/",
    "tree-path": "Invalid filename '../../../../victim.json'",
    "huge": "the answer to GET /api/datasets/o/x is 83886083 bytes, over the 32 MiB allowed",
    "huge-stream": "the answer to GET /api/datasets/o/x is over the 32 MiB allowed",
    "garbage": "an answer that is not JSON (Expecting value at byte 0)",
    "keyerror": "an answer without the field 'id'",
    "tree-garbage": "an answer that is not JSON (Expecting value at byte 0)",
}


def outside_the_cache(root: Path) -> dict[str, str]:
    """Every file, folder and link under `root` but the Hugging Face cache (root/home/hub), with its content."""
    cache = root / "home" / "hub"
    state = {}
    for path in sorted(root.rglob("*")):
        if path == cache or cache in path.parents:
            continue
        if path.is_symlink():
            state[str(path.relative_to(root))] = f"link to {os.readlink(path)}"
        elif path.is_file():
            state[str(path.relative_to(root))] = hashlib.sha256(path.read_bytes()).hexdigest()
        else:
            state[str(path.relative_to(root))] = "folder"
    return state


@pytest.fixture
def place(tmp_path) -> Path:
    """A user's folder: HF_HOME in home/, the command run in work/ (holding a copy made before), victim files where
    the hostile paths point (tmp/victim.json, home/victim.json) or would create one (tmp/victim/)."""
    (tmp_path / "home").mkdir()
    (tmp_path / "work/runs/hf/o/earlier").mkdir(parents=True)
    (tmp_path / "work/runs/hf/o/earlier/report.md").write_text("# kept\n")
    for victim in (tmp_path / "victim.json", tmp_path / "home/victim.json"):
        victim.write_bytes(VICTIM)
    return tmp_path


def report(hub: HostileHub, place: Path, timeout: int = 60) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "HUGGINGFACE_"))}
    env |= {"HF_ENDPOINT": hub.url, "HF_HOME": str(place / "home"), "HF_HUB_DISABLE_TELEMETRY": "1"}
    env |= {"HF_HUB_DOWNLOAD_TIMEOUT": str(HANG_TIMEOUT_S), "HF_HUB_DISABLE_PROGRESS_BARS": "1"}
    return subprocess.run(
        [sys.executable, "-m", "longform_eval.inference", "report", SOURCE],
        env=env,
        cwd=place / "work",
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def error_line(done: subprocess.CompletedProcess) -> str:
    assert "Traceback" not in done.stderr, done.stderr
    (line,) = [line for line in done.stderr.splitlines() if "error:" in line]
    assert line == done.stderr.strip().splitlines()[-1]
    return line


@pytest.mark.slow
@pytest.mark.parametrize("mode", sorted(WHY))
def test_a_hostile_answer_is_one_line_and_nothing_outside_the_cache_changes(mode, place):
    before = outside_the_cache(place)
    with HostileHub(dict(RUN), mode) as hub:
        done = report(hub, place)
    line = error_line(done)
    assert done.returncode == 2
    assert line.startswith(f"longform-eval report: error: {SOURCE}: refused what {hub.url} answered for the dataset ")
    assert WHY[mode] in line
    assert outside_the_cache(place) == before  # victim.json byte-identical, no victim/ folder, no run copy


@pytest.mark.slow
def test_a_hub_that_never_answers_is_one_line_within_the_timeout(place):
    before = outside_the_cache(place)
    with HostileHub(dict(RUN), "hang") as hub:
        started = time.monotonic()
        done = report(hub, place, timeout=60)  # the server holds its answer 120 s
        took = time.monotonic() - started
    assert done.returncode == 2 and took < 30
    assert error_line(done) == (
        f"longform-eval report: error: {SOURCE}: not in the local Hugging Face cache and the Hub at {hub.url} did not "
        f"answer within {HANG_TIMEOUT_S} s (HF_HUB_DOWNLOAD_TIMEOUT)"
    )
    assert outside_the_cache(place) == before


@pytest.fixture
def endpoint(monkeypatch, tmp_path):
    """This process's huggingface_hub online, its cache in tmp/home/hub, pointed at the endpoint `point(url)` names."""
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path / "home" / "hub"))

    def point(url: str) -> None:
        monkeypatch.setattr(huggingface_hub.constants, "ENDPOINT", url)
        template = url + "/{repo_id}/resolve/{revision}/{filename}"
        monkeypatch.setattr(huggingface_hub.constants, "HUGGINGFACE_CO_URL_TEMPLATE", template)

    return point


def test_a_sound_hub_is_read_and_then_read_offline_from_the_cache(endpoint, monkeypatch):
    files = {f"runs/a/{name}": data for name, data in RUN.items()}
    with HostileHub(files, "ok") as hub:
        endpoint(hub.url)
        folder = local_path(f"{SOURCE}/runs/a")
        assert {p.name: p.read_bytes() for p in folder.iterdir()} == RUN
        assert folder.parent.parent.name == COMMIT
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    assert local_path(f"{SOURCE}/runs/a") == folder  # the branch's ref, kept in the cache, finds the snapshot


@pytest.mark.parametrize("mode", ["sha", "etag", "commit-header", "huge-stream", "keyerror"])
def test_the_space_skips_a_hostile_repo_with_a_warning_and_writes_nothing_outside(mode, endpoint, place):
    from longform_eval.spaces.app import fetched  # LONGFORM_EVAL_RUNS and `space --runs` read through it

    before = outside_the_cache(place)
    with HostileHub(dict(RUN), mode) as hub, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        endpoint(hub.url)
        assert fetched([SOURCE]) == []
    (warning,) = [str(w.message) for w in caught if SOURCE in str(w.message)]
    assert warning.startswith(f"{SOURCE}: run folder skipped (refused what {hub.url} answered") and WHY[mode] in warning
    assert outside_the_cache(place) == before


def test_a_hang_ends_after_the_timeout_in_process(endpoint, monkeypatch):
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_DOWNLOAD_TIMEOUT", 1)
    with HostileHub(dict(RUN), "hang") as hub:
        endpoint(hub.url)
        started = time.monotonic()
        with pytest.raises(FileNotFoundError, match=r"did not answer within 1 s \(HF_HUB_DOWNLOAD_TIMEOUT\)$"):
            local_path(SOURCE)
        assert time.monotonic() - started < 10


def test_push_run_refuses_a_commit_id_that_is_no_commit_id():
    with pytest.raises(HubAnswerError, match=r"names the commit '\.\./\.\./victim', which is not 40 hex digits"):
        RemoteRepo(HfApi(endpoint="http://127.0.0.1:9"), "o/x", "../../victim", {})
    assert RemoteRepo(HfApi(endpoint="http://127.0.0.1:9"), "o/x", COMMIT, {}).commit == COMMIT


@pytest.mark.parametrize("revision", ["..", ".", "a\\b"])
def test_a_revision_that_is_a_path_is_refused(revision):
    with pytest.raises(ValueError, match="not a Hub dataset path"):
        parse_hub_path(f"{SOURCE}@{revision}/runs/a")
