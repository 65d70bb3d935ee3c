"""Many runs in one call: `le.runs(...)` (every run folder in or under folders and `hf://` paths) and `le.samples(...)`
(one DataFrame of every row of every run, with who made it); the Space's run table by display names."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import longform_eval as le

from .test_results_repo import REPO, online, pushed_pair, two_runs  # noqa: F401 (fixtures)
from .test_shared_runs import finished_run  # noqa: F401 (a fixture)

FIRST_COLUMNS = ["run", "model", "judge", "benchmark", "id", "task", "subcategory", "score", "words", "verdict"]


@pytest.fixture
def runs_folder(two_runs, tmp_path) -> Path:  # noqa: F811
    """A folder of runs at two depths: runs/gpt4o and runs/more/llama."""
    (tmp_path / "runs" / "more").mkdir(parents=True)
    shutil.copytree(two_runs["gpt4o"], tmp_path / "runs" / "gpt4o")
    shutil.copytree(two_runs["llama"], tmp_path / "runs" / "more" / "llama")
    return tmp_path / "runs"


def test_runs_finds_every_run_in_and_under_a_folder(runs_folder):
    found = le.runs(runs_folder)  # a bare Path is one source
    assert [run.folder for run in found] == [runs_folder / "gpt4o", runs_folder / "more" / "llama"]
    assert all(isinstance(run, le.RunResult) and run.rows == 3 for run in found)
    assert [run.folder for run in le.runs([str(runs_folder / "more"), found[0]])] == [found[1].folder, found[0].folder]


def test_samples_is_one_table_of_every_row_of_every_run_with_who_made_it(runs_folder):
    table = le.samples(str(runs_folder))
    assert list(table.columns[: len(FIRST_COLUMNS)]) == FIRST_COLUMNS and "folder" in table.columns
    assert len(table) == 6 and set(table.judge) == {"gpt-4o"} and table.verdict.notna().all()
    by_run = {run.name: run for run in le.runs(runs_folder)}
    assert set(table.run) == set(by_run) and set(table.model) == {run.model for run in by_run.values()}
    for name, run in by_run.items():
        rows = run.to_pandas("rows")
        assert table[table.run == name].score.tolist() == rows.score.tolist()
        assert table[table.run == name].id.tolist() == rows.id.tolist()


@pytest.mark.parametrize("given", [42, b"runs", {"a": 1}, [], [3.5], ""])
def test_anything_but_folders_is_a_config_error_naming_the_field(given):
    for call in (le.runs, le.samples):
        with pytest.raises(le.ConfigError) as refused:
            call(given)
        assert refused.value.field == "sources"


def test_a_missing_folder_is_a_config_error_naming_it(tmp_path):
    with pytest.raises(le.ConfigError, match="no such run folder") as refused:
        le.runs(tmp_path / "nothing")
    assert refused.value.field == "sources"


def test_runs_and_samples_of_a_hub_repo_of_runs(online, hub, two_runs, tmp_path):  # noqa: F811
    pushed_pair(two_runs, tmp_path)
    found = le.runs(f"hf://datasets/{REPO}")
    copied = Path("runs/hf") / REPO / "runs"
    assert [run.folder for run in found] == [copied / "a", copied / "b"]
    table = le.samples([f"hf://datasets/{REPO}/runs/a", f"hf://datasets/{REPO}/runs/b"])
    assert len(table) == 6 and table.folder.tolist() == [str(copied / "a")] * 3 + [str(copied / "b")] * 3


def test_the_space_run_table_shows_display_names(finished_run, two_runs):  # noqa: F811
    """`--name GPT-4o` (finished_run) and `--judge-name gpt-4o` (two_runs): the names given, not the replay files'."""
    from longform_eval.spaces.leaderboard import run_scores
    from longform_eval.spaces.run_names import read_run_file

    named, judged = run_scores([read_run_file(finished_run), read_run_file(two_runs["gpt4o"])])
    assert named[0] == "GPT-4o · hellobench:chat" and judged[1] == "gpt-4o"
