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
