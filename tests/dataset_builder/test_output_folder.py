from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from longform_eval.dataset_builder import OutputFolderError, build
from longform_eval.dataset_builder.folder import MARKER, replace_folder
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
    """A git repository with a commit, a tracked file in a subfolder and an untracked one."""
    (folder / "src").mkdir(parents=True)
    (folder / "main.py").write_text("print('hello')\n")
    (folder / "src" / "util.py").write_text("VALUE = 1\n")
    identity = ["-c", "user.name=test", "-c", "user.email=test@example.com"]
    for command in (["init", "-q"], ["add", "main.py", "src"], [*identity, "commit", "-q", "-m", "first"]):
        subprocess.run(["git", *command], cwd=folder, check=True, capture_output=True)
    (folder / "notes.txt").write_text("not committed yet\n")
    return folder


def user_folder(folder: Path) -> Path:
    (folder / "photos").mkdir(parents=True)
    (folder / "todo.txt").write_text("keep me\n")
    (folder / "photos" / "cat.jpg").write_bytes(b"\xff\xd8 not really a jpeg")
    return folder


def cache_folder(folder: Path) -> Path:
    """Something like ~/.cache: other programs' files, and one of ours (a cached source download)."""
    (folder / "pip" / "http").mkdir(parents=True)
    (folder / "pip" / "http" / "entry").write_bytes(b"cached")
    (folder / "longform_eval" / "sources" / "hellobench-0123").mkdir(parents=True)
    (folder / "longform_eval" / "sources" / "hellobench-0123" / "README.md").write_text("# HelloBench\n")
    return folder


def run_cli(capsys, *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().err


def assert_refused(code: int, err: str, reason: str) -> None:
    """Exit code 2, the reason on one line, no traceback."""
    assert code == 2, err
    assert "Traceback" not in err
    assert err.count("\n") == 1 and err.startswith("longform-eval build: error: --out "), err
    assert reason in err, err


def build_cli(shared_data: Path, out: Path | str, *flags: str) -> list[str]:
    return ["build", "hellobench", "--source", str(shared_data / "hellobench"), "--out", str(out), *flags]


NEVER = "refusing to replace it, even with --overwrite"


@pytest.mark.parametrize("flags", [[], ["--overwrite"]], ids=["plain", "overwrite"])
@pytest.mark.parametrize(
    "make,reason",
    [
        (git_checkout, "is not empty and is not a longform-eval build"),
        (user_folder, "is not empty and is not a longform-eval build"),
        (cache_folder, "is not empty and is not a longform-eval build"),
    ],
    ids=["git-checkout", "user-folder", "cache-folder"],
)
def test_a_folder_that_is_not_a_build_is_never_replaced(
    shared_data, tmp_path, capsys, make: Callable[[Path], Path], reason, flags
):
    out = make(tmp_path / "target")
    before = tree_snapshot(tmp_path)
    code, err = run_cli(capsys, *build_cli(shared_data, out, *flags))
    assert_refused(code, err, reason)
    assert NEVER in err
    assert tree_snapshot(tmp_path) == before


def test_the_cache_folder_in_home_is_never_replaced(shared_data, tmp_path, monkeypatch, capsys):
    home = tmp_path / "home"
    cache_folder(home / ".cache")
    monkeypatch.setenv("HOME", str(home))
    before = tree_snapshot(tmp_path)
    code, err = run_cli(capsys, *build_cli(shared_data, "~/.cache", "--overwrite"))
    assert_refused(code, err, f"{home / '.cache'} is not empty and is not a longform-eval build")
    assert tree_snapshot(tmp_path) == before


@pytest.mark.parametrize("extra", [[], ["--overwrite"]])
def test_build_into_the_current_git_checkout_is_refused_and_changes_nothing(
    shared_data, tmp_path, monkeypatch, capsys, extra
):
    repo = git_checkout(tmp_path / "repo")
    monkeypatch.chdir(repo)
    before = tree_snapshot(tmp_path)
    code, err = run_cli(capsys, *build_cli(shared_data, ".", *extra))
    assert_refused(code, err, f"refusing to replace {repo.resolve()}, which is the current directory, even with")
    assert tree_snapshot(tmp_path) == before
    assert "repo/.git/HEAD" in before and "repo/main.py" in before


def test_a_file_is_never_replaced(shared_data, tmp_path, capsys):
    (tmp_path / "out").write_text("notes\n")
    code, err = run_cli(capsys, *build_cli(shared_data, tmp_path / "out", "--overwrite"))
    assert_refused(code, err, f"exists and is not a folder; {NEVER}")
    assert tree_snapshot(tmp_path) == {"out": b"notes\n"}


def earlier_build(hellobench_folder: Path, out: Path) -> Path:
    """A copy of a real HelloBench build: what an earlier `build --out` left."""
    return Path(shutil.copytree(hellobench_folder, out))


def edit_marker(folder: Path, **changes) -> None:
    marker = json.loads((folder / MARKER).read_text())
    (folder / MARKER).write_text(json.dumps(marker | changes, indent=2))


def add_top_file(out: Path) -> str:
    (out / "my-scores.csv").write_text("1,2\n")
    return "my-scores.csv"


def add_file_in_a_config(out: Path) -> str:
    (out / "chat" / "notes.md").write_text("mine\n")
    return "chat/notes.md"


def add_empty_folder(out: Path) -> str:
    (out / "drafts").mkdir()
    return "drafts/"


def swap_a_listed_file_for_a_link(out: Path) -> str:
    (out.parent / "mine.parquet").write_bytes(b"my data")
    (out / "chat" / "test.parquet").unlink()
    (out / "chat" / "test.parquet").symlink_to(out.parent / "mine.parquet")
    return "chat/test.parquet"


EXTRAS = [add_top_file, add_file_in_a_config, add_empty_folder, swap_a_listed_file_for_a_link]


@pytest.mark.parametrize("add", EXTRAS, ids=lambda f: f.__name__)
def test_an_earlier_build_holding_anything_else_is_refused_even_with_overwrite(
    shared_data, hellobench_folder, tmp_path, capsys, add
):
    out = earlier_build(hellobench_folder, tmp_path / "out")
    extra = add(out)
    before = tree_snapshot(tmp_path)
    code, err = run_cli(capsys, *build_cli(shared_data, out, "--overwrite"))
    assert_refused(code, err, f"is a build of 'hellobench' but also holds files the build did not write: {extra}; ")
    assert NEVER in err
    assert tree_snapshot(tmp_path) == before


@pytest.mark.parametrize("listed", ["../victim.txt", "/etc/hostname", "chat/../../victim.txt"])
def test_a_marker_listing_paths_outside_its_folder_is_not_a_build(
    shared_data, hellobench_folder, tmp_path, capsys, listed
):
    out = earlier_build(hellobench_folder, tmp_path / "out")
    (tmp_path / "victim.txt").write_text("not the build's\n")
    edit_marker(out, files=[*json.loads((out / MARKER).read_text())["files"], listed])
    before = tree_snapshot(tmp_path)
    code, err = run_cli(capsys, *build_cli(shared_data, out, "--overwrite"))
    assert_refused(code, err, "is not empty and is not a longform-eval build (no readable .longform-eval-build.json)")
    assert tree_snapshot(tmp_path) == before


def test_an_earlier_build_is_replaced_by_removing_exactly_its_listed_files(
    shared_data, hellobench_folder, tmp_path, capsys
):
    """Its marker lists a config this build no longer writes, and a file since deleted (README.md)."""
    out = earlier_build(hellobench_folder, tmp_path / "out")
    (out / "retired" / "deep").mkdir(parents=True)
    (out / "retired" / "deep" / "test.parquet").write_bytes(b"an older config")
    (out / "README.md").unlink()
    edit_marker(out, files=[*json.loads((out / MARKER).read_text())["files"], "retired/deep/test.parquet"])
    code, err = run_cli(capsys, *build_cli(shared_data, out, "--overwrite"))
    assert (code, err) == (0, "")
    assert folder_digest(out) == folder_digest(hellobench_folder)
    assert not (out / "retired").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_an_earlier_build_of_another_dataset_is_replaced_only_with_overwrite(
    shared_data, hellobench_folder, tmp_path, capsys
):
    out = earlier_build(hellobench_folder, tmp_path / "out")
    edit_marker(out, dataset="longgenbench")
    before = tree_snapshot(tmp_path)
    code, err = run_cli(capsys, *build_cli(shared_data, out))
    assert_refused(code, err, "is a build of 'longgenbench', not 'hellobench'; pass --overwrite to replace it")
    assert tree_snapshot(tmp_path) == before
    code, err = run_cli(capsys, *build_cli(shared_data, out, "--overwrite"))
    assert (code, err) == (0, "")
    assert folder_digest(out) == folder_digest(hellobench_folder)
    assert json.loads((out / MARKER).read_text())["dataset"] == "hellobench"


def dead_pid() -> int:
    process = subprocess.Popen(["true"])
    process.wait()
    return process.pid


def staging_with(folder: Path, files: dict[str, bytes], listed: list[str] | None) -> Path:
    """A staging folder as a killed build leaves it: some files, and a marker listing `listed` (None: no marker)."""
    folder.mkdir()
    for name, data in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    if listed is not None:
        (folder / MARKER).write_text(json.dumps({"dataset": "hellobench", "files": listed}))
    return folder


def test_staging_left_by_dead_builds_is_removed_by_the_next_build(shared_data, tmp_path, capsys):
    """Into an empty folder: the next build removes `.out.tmp-PID-*` / `.out.old-PID-*` of dead processes only."""
    out = tmp_path / "out"
    out.mkdir()
    dead, live = dead_pid(), subprocess.Popen(["sleep", "60"])
    try:
        planned = ["README.md", "chat/test.parquet"]
        removed = [
            staging_with(tmp_path / f".out.tmp-{dead}-k1llx9_a", {"chat/test.parquet": b"PAR1 half"}, planned),
            staging_with(tmp_path / f".out.tmp-{dead}-3mpty000", {}, None),
            staging_with(tmp_path / f".out.old-{dead}-r3t1red0", {"README.md": b"# old"}, ["README.md"]),
        ]
        kept = [
            staging_with(tmp_path / f".out.tmp-{live.pid}-runn1ng0", {"chat/test.parquet": b"PAR1"}, planned),
            staging_with(tmp_path / f".out.tmp-{dead}-us3rf1le", {"README.md": b"#", "mine.txt": b"mine"}, planned),
            staging_with(tmp_path / f".other.tmp-{dead}-0ther000", {"README.md": b"#"}, ["README.md"]),
            staging_with(tmp_path / f".out.tmp-{dead}", {}, None),
        ]
        before = {folder.name: tree_snapshot(folder) for folder in kept}
        code, err = run_cli(capsys, *build_cli(shared_data, out))
        assert (code, err) == (0, "")
        assert not any(folder.exists() for folder in removed)
        assert {folder.name: tree_snapshot(folder) for folder in kept} == before
        assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["out", *(folder.name for folder in kept)])
    finally:
        live.kill()
        live.wait()


KILLED_BUILD = """
import sys, time
from longform_eval.dataset_builder import folder
from longform_eval.inference.benchmarks.rows import default_dataset

written = folder.write_table


def write_then_hang(staging, table):
    info = written(staging, table)
    print("staged", staging, flush=True)
    time.sleep(120)
    return info


folder.write_table = write_then_hang
default_dataset("hellobench", {}, sys.argv[1])
"""


def test_a_cache_build_killed_midway_leaves_nothing_once_the_next_run_builds(shared_data, tmp_path, monkeypatch):
    """kill -9 while the dataset cache is written: the next run's build removes the dead process's staging."""
    from longform_eval.inference.benchmarks.rows import default_dataset

    monkeypatch.setenv("LONGFORM_EVAL_CACHE", str(tmp_path))
    source = str(shared_data / "hellobench")
    process = subprocess.Popen(
        [sys.executable, "-c", KILLED_BUILD, source], stdout=subprocess.PIPE, text=True, env=dict(os.environ)
    )
    try:
        line = process.stdout.readline()
    finally:
        process.kill()
        process.wait()
    assert line.startswith("staged "), line
    staging = Path(line.removeprefix("staged ").strip())
    assert staging.name.startswith(".hellobench-") and f".tmp-{process.pid}-" in staging.name
    assert (staging / MARKER).is_file() and len(list(staging.rglob("test.parquet"))) == 1
    folder = default_dataset("hellobench", {}, source)
    assert not staging.exists()
    assert sorted(p.name for p in folder.parent.iterdir()) == [f".{folder.name}.lock", folder.name]
    assert json.loads((folder / MARKER).read_text())["dataset"] == "hellobench"


def test_an_earlier_folder_that_gains_files_during_the_build_keeps_them(tmp_path):
    """The race the check cannot see: an earlier folder with files no build wrote is moved aside, not emptied."""
    staging = tmp_path / ".out.tmp-1-abc"
    staging.mkdir()
    (staging / "README.md").write_text("new\n")
    out = tmp_path / "out"
    out.mkdir()
    (out / "README.md").write_text("old\n")
    (out / MARKER).write_text(json.dumps({"dataset": "hellobench", "files": ["README.md"]}))
    (out / "added-meanwhile.txt").write_text("mine\n")
    with pytest.raises(OutputFolderError, match=r"built, but the earlier folder, moved to .*, holds files no build"):
        replace_folder(staging, out)
    assert (out / "README.md").read_text() == "new\n"
    (retired,) = tmp_path.glob(f".out.old-{os.getpid()}-abc")
    assert sorted(tree_snapshot(retired)) == [MARKER, "README.md", "added-meanwhile.txt"]


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
