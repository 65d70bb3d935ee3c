"""`view hf://...` and the arena over `hf://` runs on a fresh machine: no upstream source, no dataset cache, every
host but the Hub stand-in blocked. The runs are read in the Hugging Face cache, their rows from their own
rows.json.gz (a link to its blob there); a run the page cannot use is named on it with its reason."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from longform_eval.inference.runner.rows_file import ROWS_FILE

from .test_shared_runs import REPO, cli, finished_run, fresh_machine  # noqa: F401 (a fixture)

# `view` and the Space as the CLI and app.py start them, with `launch` reporting what the page would show
SHOWN = """
import json, sys
import longform_eval.spaces.app as app
from longform_eval.inference.cli import main

def view(blocks, settings):  # the page was built over the runs
    print("VIEW", json.dumps(settings["runs"]))

def space(blocks, settings):
    print("SPACE", json.dumps(sorted(ARENA[0].pool.models())), json.dumps(ARENA[0].new_pair("", "", {})[4]))

ARENA = []
build = app.build_app
app.build_app = lambda arena: ARENA.append(arena) or build(arena)
app.launch = view
code = main(["view", *sys.argv[1:]])
app.launch = space
app.main({"runs": sys.argv[1:], "db": "votes.sqlite"})
print("CODE", code)
"""


def python(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", SHOWN, *args], env=env, cwd=cwd, capture_output=True, text=True)


@pytest.fixture
def pushed(hub, finished_run, tmp_path) -> list[str]:  # noqa: F811
    """Two runs pushed to the stand-in (one repo each), as `hf://` paths."""
    for name in (REPO, f"{REPO}-b"):
        result = cli(hub.env(tmp_path / "hf"), tmp_path, "push-run", str(finished_run), "--repo", name)
        assert result.returncode == 0, result.stderr
    return [f"hf://datasets/{REPO}", f"hf://datasets/{REPO}-b"]


def test_view_and_the_arena_read_hub_runs_with_github_blocked(hub, pushed, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shown = python(fresh_machine(hub, elsewhere), elsewhere, *pushed)
    assert shown.returncode == 0, shown.stderr[-3000:]
    assert "skipped" not in shown.stderr and "codeload" not in shown.stderr, shown.stderr[-3000:]
    lines = dict(line.split(" ", 1) for line in shown.stdout.splitlines() if line[:4] in ("VIEW", "SPAC", "CODE"))
    assert json.loads(lines["VIEW"]) == pushed and lines["CODE"] == "0"
    models, status = lines["SPACE"].split("] ", 1)
    assert len(json.loads(models + "]")) == 2 and json.loads(status) == "Which answer is better?"
    assert not (elsewhere / "cache" / "datasets").exists()  # no dataset built: the rows came with the runs


def test_a_run_the_arena_cannot_read_is_named_on_the_page_not_as_an_empty_filter(finished_run, tmp_path, monkeypatch):  # noqa: F811
    import urllib.request

    from longform_eval.spaces import app
    from longform_eval.spaces.app import arena_from_settings, build_app
    from longform_eval.spaces.viewer import main as view

    old = Path(shutil.copytree(finished_run, tmp_path / "old-run"))
    (old / ROWS_FILE).unlink()  # from before rows.json.gz, on a machine with no source and no way to download it
    monkeypatch.setenv("LONGFORM_EVAL_SOURCE", str(tmp_path / "no-source"))
    monkeypatch.setenv("LONGFORM_EVAL_CACHE", str(tmp_path / "empty-cache"))
    monkeypatch.setattr(urllib.request, "urlopen", lambda *a, **k: (_ for _ in ()).throw(OSError("network blocked")))
    with pytest.warns(UserWarning, match="run folder skipped"):
        arena = arena_from_settings([str(old), str(tmp_path / "gone")], db=str(tmp_path / "votes.sqlite"))
    status = arena.new_pair("", "", {})[4]
    assert "matches this filter" not in status and "no question has responses from two models" in status
    assert "2 runs not shown" in status and "old-run: run folder skipped" in status and "network blocked" in status
    page = build_app(arena).config
    notes = [c["props"].get("value") or "" for c in page["components"] if c["props"].get("elem_id") == "skipped-runs"]
    assert notes and "old-run: run folder skipped" in notes[0]
    shown = []
    monkeypatch.setattr(app, "launch", lambda blocks, settings: shown.append(blocks.config))
    with pytest.warns(UserWarning, match="run folder skipped"):
        view({"runs": [str(old), str(finished_run)]})
    (summary,) = [c["props"]["value"] for c in shown[0]["components"] if c["props"].get("elem_id") == "viewer-summary"]
    assert "1 run (read-only)" in summary and "1 run not shown" in summary and "old-run: run folder skipped" in summary


def test_only_a_cache_snapshots_link_to_its_own_blob_is_followed(finished_run, tmp_path):  # noqa: F811
    from longform_eval.inference.runner.rows_file import read_rows_file

    elsewhere = tmp_path / "elsewhere.json.gz"
    shutil.copy(finished_run / ROWS_FILE, elsewhere)
    blobs, snapshot = tmp_path / "repo" / "blobs", tmp_path / "repo" / "snapshots" / ("0" * 40)
    blobs.mkdir(parents=True)
    snapshot.mkdir(parents=True)
    shutil.copy(finished_run / ROWS_FILE, blobs / "abc")
    (snapshot / ROWS_FILE).symlink_to("../../blobs/abc")
    assert read_rows_file(snapshot / ROWS_FILE) == read_rows_file(finished_run / ROWS_FILE) is not None
    (snapshot / ROWS_FILE).unlink()
    (snapshot / ROWS_FILE).symlink_to(elsewhere)  # a link out of the repo's blobs: refused, as any link was
    assert read_rows_file(snapshot / ROWS_FILE) is None
