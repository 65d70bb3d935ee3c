from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import datasets
import pytest

from longform_eval.dataset_builder import OutputFolderError, build
from longform_eval.dataset_builder.folder import MARKER
from longform_eval.inference.cli import main

from .conftest import folder_digest


def tree_snapshot(root: Path) -> dict[str, bytes | str]:
    """Every entry under `root` (hidden ones included): file bytes, link targets, folders."""
    snapshot: dict[str, bytes | str] = {}
    for folder, names, files in os.walk(root):
        for name in names + files:
            path = Path(folder) / name
            key = path.relative_to(root).as_posix()
            if path.is_symlink():
                snapshot[key] = f"link -> {os.readlink(path)}"
            elif path.is_dir():
                snapshot[key] = "folder"
            else:
                snapshot[key] = path.read_bytes()
    return snapshot


def git_checkout(folder: Path) -> Path:
    folder.mkdir()
    (folder / "main.py").write_text("print('hello')\n")
    identity = ["-c", "user.name=test", "-c", "user.email=test@example.com"]
    for command in (["init", "-q"], ["add", "main.py"], [*identity, "commit", "-q", "-m", "first"]):
        subprocess.run(["git", *command], cwd=folder, check=True, capture_output=True)
    return folder


@pytest.mark.parametrize("extra", [[], ["--overwrite"]])
def test_build_into_the_current_git_checkout_is_refused_and_changes_nothing(
    shared_data, tmp_path, monkeypatch, capsys, extra
):
    repo = git_checkout(tmp_path / "repo")
    monkeypatch.chdir(repo)
    before = tree_snapshot(tmp_path)
    assert main(["build", "hellobench", "--source", str(shared_data / "hellobench"), "--out", ".", *extra]) == 2
    assert tree_snapshot(tmp_path) == before
    assert "repo/.git/HEAD" in before and "repo/main.py" in before
    error = capsys.readouterr().err
    assert f"refusing to replace {repo.resolve()}, which is the current directory, even with --overwrite" in error


def test_a_folder_that_is_not_a_build_is_refused_unless_overwrite(shared_data, tmp_path):
    out = tmp_path / "notes"
    out.mkdir()
    (out / "todo.txt").write_text("keep me\n")
    with pytest.raises(OutputFolderError, match=r"is not empty and is not a longform-eval build.*--overwrite"):
        build("longgenbench", source=shared_data / "longgenbench", out=out)
    assert tree_snapshot(out) == {"todo.txt": b"keep me\n"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes"]
    assert build("longgenbench", source=shared_data / "longgenbench", out=out, overwrite=True) == out
    assert not (out / "todo.txt").exists()
    assert datasets.load_dataset(str(out), "short", split="test").num_rows == 400


def test_a_file_is_not_replaced_without_overwrite(shared_data, tmp_path):
    (tmp_path / "out").write_text("notes\n")
    with pytest.raises(OutputFolderError, match=r"exists and is not a folder"):
        build("longgenbench", source=shared_data / "longgenbench", out=tmp_path / "out")
    assert (tmp_path / "out").read_text() == "notes\n"


def test_an_earlier_build_of_the_same_dataset_is_replaced_without_overwrite(shared_data, tmp_path):
    out = build("longgenbench", source=shared_data / "longgenbench", out=tmp_path / "out", generate=True, seed=1)
    marker = json.loads((out / MARKER).read_text())
    assert marker["dataset"] == "longgenbench" and marker["version"]
    assert "generated_short/test.parquet" in marker["files"]
    build("longgenbench", source=shared_data / "longgenbench", out=out)
    assert not (out / "generated_short").exists()
    assert datasets.load_dataset(str(out), "long", split="test").num_rows == 400


def test_an_empty_folder_is_used(shared_data, tmp_path):
    (tmp_path / "out").mkdir()
    assert build("longgenbench", source=shared_data / "longgenbench", out=tmp_path / "out") == tmp_path / "out"


def test_a_build_of_another_dataset_is_refused(shared_data, tmp_path):
    out = build("longgenbench", source=shared_data / "longgenbench", out=tmp_path / "out")
    before = folder_digest(out)
    with pytest.raises(OutputFolderError, match=r"is a build of 'longgenbench', not 'tencentllmeval'"):
        build("tencentllmeval", source=shared_data / "tencentllmeval", out=out)
    assert folder_digest(out) == before


def test_a_build_folder_holding_files_of_its_own_is_refused(shared_data, tmp_path):
    out = build("longgenbench", source=shared_data / "longgenbench", out=tmp_path / "out")
    (out / "short" / "my-scores.csv").write_text("1,2\n")
    with pytest.raises(OutputFolderError, match=r"holds files the build did not write: short/my-scores\.csv"):
        build("longgenbench", source=shared_data / "longgenbench", out=out)
    assert (out / "short" / "my-scores.csv").is_file()


@pytest.mark.parametrize("target", ["cwd", "parent", "root", "home", "home_parent"])
def test_the_current_folder_home_and_their_parents_are_never_replaced(shared_data, tmp_path, monkeypatch, target):
    work = tmp_path / "a" / "b"
    work.mkdir(parents=True)
    home = tmp_path / "home" / "me"
    home.mkdir(parents=True)
    (home / MARKER).write_text(json.dumps({"dataset": "longgenbench", "files": []}))
    monkeypatch.chdir(work)
    monkeypatch.setenv("HOME", str(home))
    out = {"cwd": ".", "parent": "..", "root": "/", "home": "~", "home_parent": str(home.parent)}[target]
    before = tree_snapshot(tmp_path)
    with pytest.raises(OutputFolderError, match="even with --overwrite"):
        build("longgenbench", source=shared_data / "longgenbench", out=out, overwrite=True)
    assert tree_snapshot(tmp_path) == before


def test_a_folder_holding_the_source_is_never_replaced(shared_data, tmp_path):
    source = tmp_path / "data" / "longgenbench"
    source.mkdir(parents=True)
    (source / "Dataset").symlink_to(shared_data / "longgenbench" / "Dataset")
    with pytest.raises(OutputFolderError, match=r"holds the source"):
        build("longgenbench", source=source, out=tmp_path / "data", overwrite=True)
    assert (source / "Dataset").is_symlink()
