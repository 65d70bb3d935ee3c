"""`space-export --db` and the Space (`space --db`, LONGFORM_EVAL_DB) open only a votes database that longform-eval
made, or a new (missing or empty) file: any other file is refused in one line and left byte-identical, with no
`-wal` or `-shm` file made beside it and no export folder made (issue 28, F4 and L1)."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import pytest

from longform_eval.inference.cli import main
from longform_eval.spaces.app import arena_from_settings
from longform_eval.spaces.schema import APPLICATION_ID
from longform_eval.spaces.storage import NotAVotesDatabase, Vote, VoteStore
from longform_eval.spaces.votes_file import check_votes_file

from .legacy_databases import legacy_database

FOREIGN = "the Space and space-export open only a votes database they made, or a new file"
NEWER = "has votes schema version 3, newer than this longform-eval knows (2); upgrade longform-eval to open it"


def sqlite_file(path: Path, script: str, wal: bool = False) -> Path:
    with closing(sqlite3.connect(path)) as connection:
        if wal:
            connection.execute("PRAGMA journal_mode=WAL")
        connection.executescript(script)
        connection.commit()
    return path


def other_app(folder: Path) -> tuple[Path, str]:
    script = """CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT);
    CREATE TABLE orders (id INTEGER PRIMARY KEY, customer INTEGER REFERENCES customers, total REAL);
    INSERT INTO customers (name) VALUES ('Ada'); INSERT INTO orders (customer, total) VALUES (1, 9.5);"""
    reason = "is not a longform-eval votes database (its tables, indexes and views: customers, orders; user_version 0)"
    return sqlite_file(folder / "other_app.sqlite", script), f"{reason}; {FOREIGN}"


def other_app_in_wal_mode(folder: Path) -> tuple[Path, str]:
    script = (
        "CREATE TABLE events (at REAL, what TEXT); INSERT INTO events VALUES (1.5, 'start'); PRAGMA user_version=7;"
    )
    return sqlite_file(
        folder / "events.db", script, wal=True
    ), "(its tables, indexes and views: events; user_version 7)"


def own_votes_table(folder: Path) -> tuple[Path, str]:
    script = """CREATE TABLE votes (id INTEGER PRIMARY KEY, poll TEXT NOT NULL, choice TEXT NOT NULL);
    INSERT INTO votes (poll, choice) VALUES ('lunch', 'pizza');"""
    return sqlite_file(folder / "polls.sqlite", script), "(its tables, indexes and views: votes; user_version 0)"


def toolkit_tables_and_one_of_its_own(folder: Path) -> tuple[Path, str]:
    path = legacy_database(folder / "votes.sqlite", 2)
    sqlite_file(path, "CREATE TABLE settings (key TEXT, value TEXT);")
    return path, "(its tables, indexes and views: annotations, settings, votes, votes_token; user_version 2)"


def marked_by_another_app(folder: Path) -> tuple[Path, str]:
    path = sqlite_file(folder / "repo.fossil", "PRAGMA application_id=252006674; CREATE TABLE blob (rid INTEGER);")
    return path, f"is another application's database (application_id 0xf055112); {FOREIGN}"


def text_file(folder: Path) -> tuple[Path, str]:
    path = folder / "votes.csv"
    path.write_text("annotator,outcome\nann,A\n" * 50)
    return path, "is not an SQLite database (file is not a database)"


def newer_schema(folder: Path) -> tuple[Path, str]:
    """A votes database of a later longform-eval, in rollback-journal mode: it must not be switched to WAL."""
    script = f"PRAGMA application_id={APPLICATION_ID}; PRAGMA user_version=3; CREATE TABLE votes (id INTEGER, v TEXT);"
    return sqlite_file(folder / "votes.sqlite", script), NEWER


def newer_schema_in_wal_mode(folder: Path) -> tuple[Path, str]:
    store = VoteStore(folder / "votes.sqlite")
    store.add_vote(Vote("ann", "s", "chat_002", "m1", "m2", "sorted", "A", token="t1"))
    return sqlite_file(store.path, "PRAGMA user_version=3;"), NEWER


def tableless_newer_schema(folder: Path) -> tuple[Path, str]:
    return sqlite_file(folder / "votes.sqlite", "PRAGMA user_version=3;"), NEWER


def a_folder(folder: Path) -> tuple[Path, str]:
    (folder / "votes.sqlite").mkdir()
    (folder / "votes.sqlite" / "notes.txt").write_text("mine\n")
    return folder / "votes.sqlite", "is a folder, not an SQLite file of votes"


REFUSED: list[Callable[[Path], tuple[Path, str]]] = [
    other_app,
    other_app_in_wal_mode,
    own_votes_table,
    toolkit_tables_and_one_of_its_own,
    marked_by_another_app,
    text_file,
    newer_schema,
    newer_schema_in_wal_mode,
    tableless_newer_schema,
    a_folder,
]


def files(root: Path) -> dict[str, str]:
    """Every file and folder under `root` (the database, anything beside it) with the sha256 of a file's bytes."""
    return {
        path.relative_to(root).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "dir"
        for path in sorted(root.rglob("*"))
    }


def refused_in_one_line(capsys, argv: list[str], command: str, where: str, reason: str) -> None:
    assert main(argv) == 2
    printed = capsys.readouterr()
    assert printed.out == "" and printed.err.count("\n") == 1 and "Traceback" not in printed.err
    assert printed.err.startswith(f"longform-eval {command}: error: {where}: ") and reason in printed.err


@pytest.mark.parametrize("make", REFUSED, ids=lambda make: make.__name__)
def test_space_export_refuses_it_before_the_export_folder_and_leaves_it_as_it_was(tmp_path, capsys, make):
    db, reason = make(tmp_path)
    before = files(tmp_path)
    out = tmp_path / "export"
    refused_in_one_line(
        capsys, ["space-export", "--db", str(db), "--out", str(out)], "space-export", f"--db {db}", reason
    )
    assert files(tmp_path) == before  # the database byte-identical, no -wal or -shm beside it, no export folder
    assert not Path(f"{db}-wal").exists() and not Path(f"{db}-shm").exists() and not out.exists()
    if make is newer_schema:
        assert db.read_bytes()[18:20] == b"\x01\x01"  # still in rollback-journal mode, not switched to WAL


@pytest.mark.parametrize("make", REFUSED, ids=lambda make: make.__name__)
def test_the_spaces_store_refuses_it_and_leaves_it_as_it_was(tmp_path, zh_runs, capsys, monkeypatch, make):
    db, reason = make(tmp_path)
    before = files(tmp_path)
    for open_store in (VoteStore, lambda db: arena_from_settings(zh_runs, db=str(db))):
        with pytest.raises(NotAVotesDatabase) as refused:
            open_store(db)
        assert str(refused.value).startswith(f"{db}: ") and reason in str(refused.value)
    monkeypatch.setattr("longform_eval.spaces.app.launch", lambda *args, **kwargs: pytest.fail("the Space started"))
    refused_in_one_line(capsys, ["space", "--runs", *map(str, zh_runs), "--db", str(db)], "space", str(db), reason)
    assert files(tmp_path) == before


def test_a_check_raced_past_is_caught_under_the_write_lock(tmp_path, monkeypatch):
    """Another process could put a foreign database in place between the read-only check and the first write."""
    db, reason = own_votes_table(tmp_path)
    before = files(tmp_path)
    monkeypatch.setattr("longform_eval.spaces.storage.check_votes_file", lambda path: True)
    with pytest.raises(NotAVotesDatabase, match="its tables, indexes and views: votes;"):
        VoteStore(db)
    assert files(tmp_path) == before


def test_a_foreign_database_open_in_its_app_is_read_through_its_wal(tmp_path):
    """Its tables are still in its -wal file only (not checkpointed into the main file): they are seen, and refused."""
    path = tmp_path / "app.sqlite"
    with closing(sqlite3.connect(path, isolation_level=None)) as app:
        app.execute("PRAGMA journal_mode=WAL")
        app.execute("PRAGMA wal_autocheckpoint=0")
        app.execute("CREATE TABLE votes (poll TEXT)")
        assert Path(f"{path}-wal").stat().st_size > 0
        main_file = hashlib.sha256(path.read_bytes()).hexdigest()
        for check in (check_votes_file, VoteStore):
            with pytest.raises(NotAVotesDatabase, match="its tables, indexes and views: votes;"):
                check(path)
        assert hashlib.sha256(path.read_bytes()).hexdigest() == main_file


def test_the_same_refusal_as_a_user_starts_the_commands(tmp_path, zh_runs):
    """`longform-eval space-export` and the Space as a Space runs it (`python -m ...app`, LONGFORM_EVAL_DB)."""
    db, _ = other_app(tmp_path)
    text, _ = text_file(tmp_path)
    before = files(tmp_path)
    environ = os.environ | {"LONGFORM_EVAL_RUNS": os.pathsep.join(map(str, zh_runs))}
    for target in (db, text):
        export = [sys.executable, "-m", "longform_eval.inference", "space-export", "--db", str(target), "--out", "x"]
        space = [sys.executable, "-m", "longform_eval.spaces.app"]
        for argv, env in ((export, os.environ), (space, environ | {"LONGFORM_EVAL_DB": str(target)})):
            done = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
            last = done.stderr.strip().splitlines()[-1]
            assert done.returncode != 0 and "Traceback" not in done.stderr and done.stdout == ""
            assert last.startswith("longform-eval space") and f"{target}: is not" in last, done.stderr
    assert files(tmp_path) == before


def test_space_export_refuses_an_empty_or_missing_file_and_makes_nothing(tmp_path, capsys):
    empty, missing, out = tmp_path / "empty.sqlite", tmp_path / "typo.sqlite", tmp_path / "export"
    empty.touch()
    tableless = sqlite_file(tmp_path / "tableless.sqlite", "CREATE TABLE scratch (x); DROP TABLE scratch;", wal=True)
    before = files(tmp_path)
    argv = ["space-export", "--out", str(out), "--db"]
    for db in (empty, tableless):
        refused_in_one_line(capsys, [*argv, str(db)], "space-export", f"--db {db}", "holds no votes (an empty file or")
    refused_in_one_line(capsys, [*argv, str(missing)], "space-export", f"--db {missing}", "no such file")
    assert files(tmp_path) == before and sorted(before) == ["empty.sqlite", "tableless.sqlite"]


@pytest.mark.parametrize("make", [lambda path: path.touch(), lambda path: None], ids=["empty file", "fresh path"])
def test_the_space_makes_its_database_in_an_empty_file_or_a_fresh_path(tmp_path, make):
    path = tmp_path / "new" / "votes.sqlite"
    path.parent.mkdir()
    make(path)
    VoteStore(path).add_vote(Vote("ann", "s", "chat_002", "m1", "m2", "sorted", "A", token="t1"))
    with closing(sqlite3.connect(path)) as connection:
        marks = [connection.execute(f"PRAGMA {name}").fetchone()[0] for name in ("application_id", "user_version")]
        assert marks == [APPLICATION_ID, 2] and connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert [vote.token for vote in VoteStore(path).votes()] == ["t1"]


@pytest.mark.parametrize("version", [1, 2])
def test_a_votes_database_of_an_earlier_longform_eval_opens_migrates_and_exports(tmp_path, capsys, version):
    """Made before the application_id mark: recognised by its layout, then marked and brought to schema 2."""
    path = legacy_database(tmp_path / "votes.sqlite", version)
    assert main(["space-export", "--db", str(path), "--out", str(tmp_path / "export")]) == 0
    assert capsys.readouterr().err == ""
    assert (tmp_path / "export" / "votes.jsonl").read_text().count('"annotator": "old"') == 1
    with closing(sqlite3.connect(path)) as connection:
        marks = [connection.execute(f"PRAGMA {name}").fetchone()[0] for name in ("application_id", "user_version")]
    assert marks == [APPLICATION_ID, 2]
    store = VoteStore(path)
    store.add_vote(Vote("new", "s", "chat_002", "m1", "m2", "sorted", "A", token="t1"))
    assert [vote.annotator for vote in store.votes()] == ["old", "new"]


def test_a_votes_database_open_in_a_running_space_is_read_through_its_wal(tmp_path):
    """Its tables and votes in the -wal file only, not yet in the main file: another process (an export, a second
    replica) sees them all and takes it for what it is, a votes database."""
    path = sqlite_file(tmp_path / "votes.sqlite", "CREATE TABLE scratch (x); DROP TABLE scratch;", wal=True)
    with closing(sqlite3.connect(path, isolation_level=None)) as held:  # open all along: nothing is checkpointed
        held.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
        VoteStore(path).add_vote(Vote("ann", "s", "chat_002", "m1", "m2", "sorted", "A", token="t1"))
        with closing(sqlite3.connect(f"{path.as_uri()}?immutable=1", uri=True)) as main_file_alone:
            assert main_file_alone.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()[0] == 0
        assert check_votes_file(path) is True
        assert [vote.token for vote in VoteStore(path).votes()] == ["t1"]
