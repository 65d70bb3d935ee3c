"""What the tests of votes kept on the Hub share: the votes repo, votes, the repo's records, and huggingface_hub
online in this process (to call the stand-in only)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import huggingface_hub.constants
import pytest
from hub_standin import FAKE_TOKEN
from huggingface_hub import HfApi

from longform_eval.spaces.storage import Vote

REPO_ID = "arena-org/votes"
OUTCOMES = ("A", "B", "equally_good", "equally_bad")


def vote(i: int, **fields) -> Vote:
    return Vote(f"ann{i % 3}", "s", f"item{i}", "m1", "m2", "sorted", OUTCOMES[i % 4], token=f"t{i}", **fields)


def go_online(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """huggingface_hub in this process online for one test (to call the stand-in only), with a cache of its own."""
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path / "hf-cache"))


def lines_in(files: dict[str, bytes], kind: str) -> list[dict]:
    """Every record in the repo's files of `kind`; each file must end with a whole line."""
    found = []
    for path, data in files.items():
        if path.startswith(f"{kind}/"):
            assert data.endswith(b"\n"), f"{path} ends with a torn line"
            found += [json.loads(line) for line in data.decode().splitlines()]
    return found


def pushed_tokens(hub) -> list[str]:
    return [v["token"] for v in lines_in(hub.files(REPO_ID), "votes")]


def upload_runs(hub, zh_runs: list[Path]) -> str:
    """The two run folders in a dataset repo of the stand-in; LONGFORM_EVAL_RUNS naming them as hf:// paths."""
    api = HfApi(endpoint=hub.url, token=FAKE_TOKEN)
    api.create_repo("arena-org/runs", repo_type="dataset")
    for run in zh_runs:
        api.upload_folder(folder_path=run, path_in_repo=run.name, repo_id="arena-org/runs", repo_type="dataset")
    return os.pathsep.join(f"hf://datasets/arena-org/runs/{run.name}" for run in zh_runs)
