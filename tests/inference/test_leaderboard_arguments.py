"""`le.leaderboard`'s arguments (issue 46, item 5): a bare str or Path is one run source, never walked letter by
letter; anything else is a ConfigError naming the field; a folder of runs is searched a few levels down, following
no link."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import longform_eval as le
from longform_eval.inference.report.leaderboard_build import SEARCH_DEPTH, run_folders

from .conftest import replayed_chat_run


@pytest.fixture(scope="module")
def scored(gpt4o_replays, tmp_path_factory) -> Path:
    return replayed_chat_run(gpt4o_replays, tmp_path_factory.mktemp("arguments") / "runs" / "gpt4o", 3)


@pytest.mark.parametrize("as_given", [str, Path])
def test_a_bare_folder_is_one_run_source(scored, as_given):
    board = le.leaderboard(as_given(scored))
    assert [Path(row.run) for row in board.rows] == [scored]
    assert [Path(row.run) for row in le.leaderboard(as_given(scored.parent)).rows] == [scored]


@pytest.mark.parametrize(
    "runs,out,field", [(b"runs", None, "runs"), (123, None, "runs"), ({"a": 1}, None, "runs"), (["x"], 123, "out")]
)
def test_anything_else_is_a_config_error_naming_the_field(runs, out, field):
    with pytest.raises(le.ConfigError, match=rf"^{field}: expected a"):
        le.leaderboard(runs, out=out)


def test_runs_are_looked_for_a_few_levels_down_and_through_no_link(scored, tmp_path):
    deep = tmp_path.joinpath(*["d"] * (SEARCH_DEPTH + 1))
    deep.parent.mkdir(parents=True)
    os.symlink(scored, tmp_path / "link")
    os.symlink(scored, deep)
    with pytest.raises(FileNotFoundError, match=f"holds no scored run folder within {SEARCH_DEPTH} levels below it"):
        run_folders([tmp_path])
    shallow = tmp_path / "d" / "copy"
    shallow.symlink_to(scored)
    with pytest.raises(FileNotFoundError):
        run_folders([tmp_path])  # a link is not a run folder found below


# ----- the --out folder: one writer at a time, written whole, a killed writer's leftovers cleaned -----------------
@pytest.fixture(scope="module")
def two(gpt4o_replays, tmp_path_factory) -> Path:
    """A folder of two scored runs (the first's copy under another name)."""
    import shutil

    folder = tmp_path_factory.mktemp("two") / "runs"
    first = replayed_chat_run(gpt4o_replays, folder / "a", 3)
    shutil.copytree(first, folder / "b")
    return folder


def test_a_killed_writers_temporary_file_is_cleaned_not_refused_forever(scored, tmp_path):
    out = tmp_path / "board"
    le.leaderboard(scored, out=out)
    leftover = out / ".leaderboard.png.k1ll3d_x.tmp"  # what `atomic.replacing` leaves when SIGKILL stops it
    leftover.write_bytes(b"half a png")
    le.leaderboard(scored, out=out)
    assert not leftover.exists() and (out / "leaderboard.png").is_file()
    (out / "notes.txt").write_text("mine")  # a file nobody's writer left: still refused
    with pytest.raises(le.LongformEvalError, match="notes.txt"):
        le.leaderboard(scored, out=out)


def test_two_writers_of_one_folder_never_leave_a_mix(scored, two, tmp_path):
    import json
    from concurrent.futures import ThreadPoolExecutor

    out = tmp_path / "board"
    sources = [[scored], [two]] * 3
    with ThreadPoolExecutor(2) as pool:
        list(pool.map(lambda runs: le.leaderboard(runs, out=out), sources))
    rows = len(json.loads((out / "leaderboard.json").read_text())["tables"][0]["rows"])
    assert len((out / "leaderboard.csv").read_text().splitlines()) == rows + 1
    assert sorted(p.name for p in out.iterdir()) == sorted(
        [".longform-eval-leaderboard.json", *(f"leaderboard.{s}" for s in ("csv", "json", "md", "pdf", "png", "tex"))]
    )
    assert not [p for p in tmp_path.iterdir() if ".tmp-" in p.name or ".old-" in p.name]
