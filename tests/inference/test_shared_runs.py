"""A run shared on the Hub is read on a fresh machine: no upstream source, no dataset cache, every host but the Hub
stand-in blocked. The run folder carries the rows it evaluated (rows.json.gz), so `report hf://...` rebuilds nothing."""

from __future__ import annotations

import gzip
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from longform_eval.inference.cli import main
from longform_eval.inference.runner import Run
from longform_eval.inference.runner.rows_file import ROWS_FILE, stored_rows

from .conftest import chat_run

TIMEOUT = 240
REPO = "org/shared-run"
HEADLINE = re.compile(r"^Headline: .*$", re.M)


@pytest.fixture(scope="module")
def finished_run(gpt4o_replays, tmp_path_factory) -> Path:
    generations, verdicts = gpt4o_replays
    out = tmp_path_factory.mktemp("shared") / "run"
    assert main(chat_run(3, f"replay:{generations}", f"replay:{verdicts}", str(out), "--name", "GPT-4o")) == 0
    return out


def fresh_machine(hub, home: Path) -> dict[str, str]:
    """The environment of a machine that has never seen the benchmarks: no LONGFORM_EVAL_SOURCE, an empty home and
    caches, and a proxy that does not exist for every host but the stand-in's (GitHub, the Hub's CDN, ...)."""
    env = hub.env(home / "hf")
    env.pop("LONGFORM_EVAL_SOURCE", None)
    env.update(
        HOME=str(home),
        LONGFORM_EVAL_CACHE=str(home / "cache"),
        HTTPS_PROXY="http://127.0.0.1:9",
        HTTP_PROXY="http://127.0.0.1:9",
        https_proxy="http://127.0.0.1:9",
        http_proxy="http://127.0.0.1:9",
        NO_PROXY="127.0.0.1,localhost",
        no_proxy="127.0.0.1,localhost",
    )
    return env


def cli(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "longform_eval.inference", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )


def test_the_run_folder_keeps_the_rows_it_evaluated(finished_run):
    run = Run.open(finished_run, read_only=True)
    kept = stored_rows(finished_run, run.config)
    assert kept is not None and kept[1] == run.config.dataset_hash
    assert [row["id"] for row in kept[0]] == [row["id"] for row in run.rows] and len(kept[0]) == 3


def test_rows_of_another_selection_or_a_damaged_file_are_not_used(finished_run, tmp_path):
    copy = Path(shutil.copytree(finished_run, tmp_path / "run"))
    config = Run.open(copy, read_only=True).config
    assert stored_rows(copy, config.model_copy(update={"selection": {"limit": 2}})) is None
    assert stored_rows(copy, config.model_copy(update={"dataset_hash": "0" * 64})) is None
    (copy / ROWS_FILE).write_bytes(gzip.compress(b'{"format": 1, "rows": [')[:-4])  # cut short
    assert stored_rows(copy, config) is None
    reread = Run.open(copy, read_only=True)  # from the dataset again, as before the file existed
    assert [row["id"] for row in reread.rows] == [row["id"] for row in Run.open(finished_run, read_only=True).rows]


@pytest.mark.slow
def test_a_pushed_run_is_reported_on_a_fresh_machine_with_github_blocked(hub, finished_run, tmp_path):
    pushed = cli(hub.env(tmp_path / "hf"), tmp_path, "push-run", str(finished_run), "--repo", REPO)
    assert pushed.returncode == 0, pushed.stderr
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = fresh_machine(hub, elsewhere)
    reported = cli(env, elsewhere, "report", f"hf://datasets/{REPO}")
    assert reported.returncode == 0, reported.stderr
    copy = elsewhere / "runs/hf" / REPO
    assert (copy / ROWS_FILE).is_file()  # pushed, and copied with the run
    local = HEADLINE.search((finished_run / "report.md").read_text()).group()
    assert HEADLINE.search((copy / "report.md").read_text()).group() == local
    assert not (elsewhere / "cache" / "datasets").exists()  # no dataset built: the rows came with the run
    assert json.loads((copy / "scores.json").read_text())["n_samples"] == 3


def test_the_arena_skips_a_run_it_cannot_read_with_one_line_and_starts(finished_run, tmp_path, monkeypatch):
    """A run folder from before rows.json.gz, on a machine with no source and no way to download it: the Space's
    arena warns once, naming it, and starts over the runs it can read."""
    import urllib.request

    from longform_eval.spaces.app import arena_from_settings

    old = Path(shutil.copytree(finished_run, tmp_path / "old-run"))
    (old / ROWS_FILE).unlink()
    monkeypatch.setenv("LONGFORM_EVAL_SOURCE", str(tmp_path / "no-source"))
    monkeypatch.setenv("LONGFORM_EVAL_CACHE", str(tmp_path / "empty-cache"))

    def blocked(*args, **kwargs):
        raise OSError("network blocked")

    monkeypatch.setattr(urllib.request, "urlopen", blocked)
    with pytest.warns(UserWarning) as caught:
        arena = arena_from_settings([str(old), str(finished_run)], db=str(tmp_path / "votes.sqlite"))
    skipped = [str(w.message) for w in caught if "skipped" in str(w.message)]
    assert len(skipped) == 1 and skipped[0].startswith(str(old)), skipped
    assert arena is not None
