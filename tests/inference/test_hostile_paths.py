"""Every command and API function that takes a path, handed a FIFO, a 2 GB sparse file, `/dev/zero`, a folder, JSON
nested 100,000 deep, a 400-digit integer or a symlink where it expects a file: one line naming the file (exit 2) or
a LongformEvalError, in bounded time and memory, with nothing written; a symlink to a good file is read as the file.

A cache (rows.json.gz; derived.json, left by an earlier version) is no input: hostile, it is ignored (computed
again), never an error."""

from __future__ import annotations

import hashlib
import os
import resource
import shutil
import signal
import sqlite3
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

import longform_eval as le
from longform_eval.common.errors import LongformEvalError
from longform_eval.inference.cli import main
from longform_eval.spaces.run_folders import read_run
from longform_eval.spaces.viewer_rows import read_view_run

from .conftest import released, replayed_chat_run

SPARSE_BYTES = 2 * 1024**3
HEADROOM = 1536 * 1024 * 1024  # address space a call may add: less than one read of the sparse file
DEEP_LINE = "[" * 100_000 + "]" * 100_000
HUGE_INTEGER = '{"row_id": "r", "model": "m", "checklist_scores": [' + "1" * 400 + "]}"
LABEL = '{"row_id": "r", "model": "m", "checklist_scores": [1]}\n'
HOSTILE = ("fifo", "sparse", "zero", "folder", "deep")


@contextmanager
def bounded(seconds: int = 20) -> Iterator[None]:
    """Fail a call that blocks or runs past `seconds`, or that maps more than HEADROOM of memory (a MemoryError)."""

    def late(*_):
        raise TimeoutError(f"still running after {seconds} s")

    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    with open("/proc/self/statm") as statm:
        mapped = int(statm.read().split()[0]) * resource.getpagesize()
    previous = signal.signal(signal.SIGALRM, late)
    signal.alarm(seconds)
    resource.setrlimit(resource.RLIMIT_AS, (mapped + HEADROOM, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def snapshot(root: Path) -> dict[str, str]:
    """Every entry under `root` (links not followed): a small file's sha256, a large one's size and mtime, a folder
    (not its mtime: a command's lock file comes and goes)."""
    found = {}
    for path in sorted(root.rglob("*")):
        info = path.lstat()
        name = str(path.relative_to(root))
        if stat.S_ISLNK(info.st_mode):
            found[name] = f"-> {os.readlink(path)}"
        elif stat.S_ISREG(info.st_mode) and info.st_size < 1 << 26:
            found[name] = hashlib.sha256(path.read_bytes()).hexdigest()
        elif stat.S_ISDIR(info.st_mode):
            found[name] = "folder"
        else:
            found[name] = f"{stat.filemode(info.st_mode)} {info.st_size} {info.st_mtime_ns}"
    return found


def plant(path: Path, kind: str) -> None:
    """Put a hostile `kind` of thing where `path` is expected; "symlink": a link to the good file, moved outside."""
    good = path.read_bytes() if path.is_file() else b""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "sparse":
        with path.open("wb") as handle:
            handle.truncate(SPARSE_BYTES)
    elif kind == "zero":
        path.symlink_to("/dev/zero")
    elif kind == "folder":
        path.mkdir()
    elif kind == "deep":
        path.write_text(DEEP_LINE + "\n")
    elif kind == "huge integer":
        path.write_text(HUGE_INTEGER + "\n")
    else:
        outside = path.parent.parent / f"outside-{path.name}"
        outside.write_bytes(good)
        path.symlink_to(outside)


@pytest.fixture(scope="module")
def finished_run(gpt4o_replays, tmp_path_factory) -> Path:
    return replayed_chat_run(gpt4o_replays, tmp_path_factory.mktemp("hostile") / "run", 2)


@pytest.fixture
def run(finished_run, tmp_path, monkeypatch) -> Path:
    """A copy of the finished run in this test's own folder (the working folder, so nothing lands elsewhere)."""
    monkeypatch.chdir(tmp_path)
    return Path(shutil.copytree(finished_run, tmp_path / "run", symlinks=True))


def refused_in_one_line(capsys, argv: list[str], named: Path | str) -> None:
    with bounded():
        status = main(argv)
    err = capsys.readouterr().err
    assert "Traceback" not in err and status == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and str(named) in lines[0], err


# ----- the command line -----------------------------------------------------------------------------------------
RUN_FILES = {
    "score": ("config.yaml", "generations.jsonl", "judgements.jsonl"),
    "judge": ("config.yaml", "generations.jsonl", "judgements.jsonl"),
    "report": ("config.yaml", "generations.jsonl", "scores.json", "timings.json"),
    "leaderboard": ("config.yaml", "scores.json"),
}
EXTRA = {"leaderboard": ["--out", "board"]}  # in the test's working folder
CASES = [(command, name, kind) for command, names in RUN_FILES.items() for name in names for kind in HOSTILE]


def skipped_as_damaged(name: str, kind: str) -> bool:
    """A log line that is no record (JSON nested too deeply) is skipped with a warning, as any damaged line is."""
    return name.endswith(".jsonl") and kind == "deep"


@pytest.mark.parametrize("command,name,kind", CASES, ids=[" ".join(case) for case in CASES])
def test_a_run_folder_file_that_is_hostile_is_one_line_and_nothing_is_written(run, capsys, command, name, kind):
    plant(run / name, kind)
    before = snapshot(run.parent)
    if skipped_as_damaged(name, kind):
        with bounded():
            status = main([command, str(run)])
        err = capsys.readouterr().err
        assert "Traceback" not in err and "damaged record skipped" in err and status in (0, 1), err  # 1: calls owed
        return
    refused_in_one_line(capsys, [command, str(run), *EXTRA.get(command, [])], run / name)
    assert snapshot(run.parent) == before


@pytest.mark.parametrize("name", ["scores.json", "generations.jsonl", "config.yaml", "judgements.jsonl"])
@pytest.mark.parametrize("command", ["score", "report"])
def test_a_symlink_to_a_good_file_is_read_as_the_file_where_the_folders_rules_allow(run, capsys, command, name):
    """A run in the Hugging Face cache is a folder of links: reading follows them; a command that may append to a
    log (score counts the calls owed in it) takes only a log of the folder's own, as it always has."""
    plant(run / name, "symlink")
    outside = snapshot(run.parent)[f"outside-{name}"]
    if command == "score" and name.endswith(".jsonl"):
        refused_in_one_line(capsys, [command, str(run)], f"{run / name} is a symlink")
    else:
        with bounded():
            assert main([command, str(run)]) == 0, capsys.readouterr().err
    assert snapshot(run.parent)[f"outside-{name}"] == outside  # never written through the link


@pytest.mark.parametrize("kind", [*HOSTILE, "symlink"])
@pytest.mark.parametrize("name", ["rows.json.gz", "derived.json"])
def test_a_hostile_cache_is_ignored(run, capsys, name, kind):
    """Never read; written again where it can be (a folder in its place cannot be replaced: one line naming it).
    derived.json, which an earlier version kept in the folder, is neither read nor written now."""
    plant(run / name, kind)
    if kind == "folder" and name != "derived.json":
        refused_in_one_line(capsys, ["score", str(run)], f"{run / name}: Is a directory")
        return
    with bounded():
        assert main(["score", str(run)]) == 0, capsys.readouterr().err


@pytest.mark.parametrize("kind", [*HOSTILE, "huge integer"])
def test_calibrate_refuses_hostile_human_labels_in_one_line(run, tmp_path, capsys, kind):
    labels = tmp_path / "labels.jsonl"
    plant(labels, kind)
    before = snapshot(tmp_path)
    refused_in_one_line(capsys, ["calibrate", str(run), "--human", str(labels)], labels)  # a folder: no labels
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("kind", HOSTILE)
def test_calibrate_names_a_hostile_scores_json(run, tmp_path, capsys, kind):
    labels = tmp_path / "labels.jsonl"
    labels.write_text(LABEL)
    plant(run / "scores.json", kind)
    before = snapshot(tmp_path)
    refused_in_one_line(capsys, ["calibrate", str(run), "--human", str(labels)], run / "scores.json")
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("kind", [*HOSTILE, "huge integer"])
def test_import_generations_refuses_a_hostile_response_file(tmp_path, capsys, kind):
    responses = tmp_path / "responses.jsonl"
    plant(responses, kind)
    before = snapshot(tmp_path)
    refused_in_one_line(capsys, ["import-generations", str(responses), "--out", str(tmp_path / "out")], responses)
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("kind", ["fifo", "sparse", "zero", "deep"])
def test_import_generations_refuses_a_hostile_task_file_in_a_released_folder(tmp_path, capsys, kind):
    folder = tmp_path / "gpt4o"
    folder.mkdir()
    plant(folder / "chat_results.jsonl", kind)
    before = snapshot(tmp_path)
    argv = ["import-generations", str(folder), "--out", str(tmp_path / "out")]
    refused_in_one_line(capsys, argv, folder / "chat_results.jsonl")
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("kind", HOSTILE)
def test_fit_weights_refuses_a_hostile_annotation_file(tmp_path, monkeypatch, capsys, kind):
    monkeypatch.chdir(tmp_path)
    annotations = tmp_path / "annotations.jsonl"
    plant(annotations, kind)
    before = snapshot(tmp_path)
    refused_in_one_line(capsys, ["fit-weights", str(annotations)], annotations)
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("kind", ["fifo", "sparse", "zero", "folder"])
def test_space_export_refuses_a_hostile_database(tmp_path, capsys, kind):
    database = tmp_path / "votes.sqlite"
    plant(database, kind)
    before = snapshot(tmp_path)
    refused_in_one_line(capsys, ["space-export", "--db", str(database), "--out", str(tmp_path / "export")], database)
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("kind", ["fifo", "sparse", "zero"])
def test_replay_refuses_a_hostile_file_of_completions(tmp_path, capsys, kind):
    completions = tmp_path / "completions.jsonl"
    plant(completions, kind)
    before = snapshot(tmp_path)
    argv = ["generate", "--benchmark", "hellobench:chat", "--limit", "1", "--model", f"replay:{completions}"]
    refused_in_one_line(capsys, [*argv, "--out", str(tmp_path / "out")], completions)
    assert snapshot(tmp_path) == before


# ----- the Python API and the Space's readers -----------------------------------------------------------------
READERS: dict[str, Callable[[Path], object]] = {
    "open_run": le.open_run,
    "score": le.score,
    "compare": lambda folder: le.compare([folder, folder]),
    "leaderboard": lambda folder: le.leaderboard([folder]),
    "view": read_view_run,
    "space": read_run,
}
API_CASES = [
    (reader, name, kind)
    for reader in READERS
    for name in ("config.yaml", "generations.jsonl", "scores.json")
    for kind in ("fifo", "sparse", "zero", "folder")
    if not (name == "scores.json" and reader in ("score", "view", "space"))  # written by score; optional to a view
]


@pytest.mark.parametrize("reader,name,kind", API_CASES, ids=[" ".join(case) for case in API_CASES])
def test_every_api_reader_refuses_a_hostile_file_with_a_toolkit_error(run, reader, name, kind):
    plant(run / name, kind)
    before = snapshot(run.parent)
    with bounded(), pytest.raises(LongformEvalError) as caught:
        READERS[reader](run)
    assert "\n" not in str(caught.value) and str(run / name) in str(caught.value)
    assert snapshot(run.parent) == before


@pytest.mark.parametrize("kind", [*HOSTILE, "huge integer"])
def test_the_api_import_refuses_a_hostile_response_file_as_a_config_error(shared_data, tmp_path, kind):
    responses = tmp_path / "responses.jsonl"
    plant(responses, kind)
    before = snapshot(tmp_path)
    with bounded(), pytest.raises(le.ConfigError) as caught:
        le.import_generations(responses, tmp_path / "out")
    assert caught.value.field == "responses" and str(responses) in str(caught.value)
    assert snapshot(tmp_path) == before


def test_a_symlinked_response_file_is_imported_as_the_file(shared_data, tmp_path):
    record = released(shared_data, "generations", "gpt4o_0806")[0]
    good = tmp_path / "responses.jsonl"
    good.write_text(f'{{"id": "{record["id"]}", "response": "an answer"}}\n')
    plant(good, "symlink")
    result = le.import_generations(good, tmp_path / "out", skip_unknown=True)
    assert result.folder == tmp_path / "out"


# ----- the Space's stores: a votes database and a journal are anyone's files --------------------------------------
def test_a_deep_checklist_in_a_votes_database_is_one_line_naming_it(tmp_path):
    from longform_eval.spaces.schema import NotAVotesDatabase
    from longform_eval.spaces.storage import VoteStore

    store = VoteStore(tmp_path / "votes.sqlite")
    store.add_annotation("ann", "chat_001", "chat", "m", [1.0], 5.0)
    with sqlite3.connect(store.path) as connection:
        connection.execute("UPDATE annotations SET checklist_scores = ?", (DEEP_LINE,))
    with bounded(), pytest.raises(NotAVotesDatabase) as caught:
        store.annotation_records()
    assert str(caught.value) == (
        f"{store.path}: annotation 1: field 'checklist_scores': nested more than 100 levels deep"
    )


@pytest.mark.parametrize("kind", ["fifo", "sparse", "zero"])
def test_a_hostile_journal_file_is_one_line_naming_it(tmp_path, kind):
    from longform_eval.spaces.journal import read_journal

    (tmp_path / "votes").mkdir()
    plant(tmp_path / "votes" / "a.jsonl", kind)
    with bounded(), pytest.raises(LongformEvalError) as caught:
        read_journal(tmp_path, "hf://datasets/org/votes")
    assert str(caught.value).startswith("hf://datasets/org/votes/votes/a.jsonl: ")


def test_a_deep_journal_line_is_skipped_with_a_warning(tmp_path):
    from longform_eval.spaces.journal import read_journal

    (tmp_path / "votes").mkdir()
    (tmp_path / "votes" / "a.jsonl").write_text(DEEP_LINE + "\n" + HUGE_INTEGER + "\n")
    with bounded(), pytest.warns(UserWarning) as warned:
        records = read_journal(tmp_path)
    assert records.votes == [] and len(warned) == 2
    assert "nested more than 100 levels deep" in str(warned[0].message)
    assert "an integer of 400 digits" in str(warned[1].message)
