"""Whether a file may be opened as the votes database: looked at read-only, before anything is written to it.

SQLite opening a database in WAL mode, even read-only, creates its `-wal` and `-shm` files beside it. So a database
whose `-wal` and `-shm` are not both there already (no process has it open) is read as immutable (the main file
alone, which then holds everything), and one with both is read through them, as its writers see it.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from contextlib import closing
from pathlib import Path

from longform_eval.spaces.schema import NotAVotesDatabase, layout, refusal


def check_votes_file(path: Path, label: str | None = None) -> bool:
    """Whether `path` holds a votes database of this toolkit (one to migrate, if older); False when there is no file
    there, an empty one or a database with no tables (a new database). Nothing is written, at `path` or beside it.

    Raises:
        NotAVotesDatabase: one line naming `label` (default: the path): it is a folder, a broken link or not a
            regular file, not an SQLite database, another application's database, or one of a newer schema version.
    """
    where = label or str(path)
    try:
        found = path.stat()
    except FileNotFoundError:
        if os.path.lexists(path):  # SQLite would create the file the link points to
            raise NotAVotesDatabase(f"{where}: is a symlink to a missing file; give the file itself") from None
        return False
    except OSError as error:
        raise NotAVotesDatabase(f"{where}: cannot be read ({error.strerror or error})") from error
    if stat.S_ISDIR(found.st_mode):
        raise NotAVotesDatabase(f"{where}: is a folder, not an SQLite file of votes")
    if not stat.S_ISREG(found.st_mode):
        raise NotAVotesDatabase(f"{where}: is not a regular file, so not an SQLite file of votes")
    if found.st_size == 0:
        return False
    try:
        with closing(sqlite3.connect(read_only_uri(path), uri=True)) as connection:
            problem = refusal(connection)
            tables = bool(layout(connection))
    except sqlite3.Error as error:
        if getattr(error, "sqlite_errorname", "") == "SQLITE_NOTADB":
            raise NotAVotesDatabase(f"{where}: is not an SQLite database ({error})") from error
        raise NotAVotesDatabase(f"{where}: cannot be read as an SQLite database ({error})") from error
    if problem:
        raise NotAVotesDatabase(f"{where}: {problem}")
    return tables


def read_only_uri(path: Path) -> str:
    """The URI that opens `path` read-only, creating no `-wal` or `-shm` file (see the module's docstring)."""
    target = path.resolve()  # SQLite keeps the -wal and -shm of a symlinked database beside the file it names
    in_use = all(Path(f"{target}{suffix}").exists() for suffix in ("-wal", "-shm"))
    return f"{target.as_uri()}?mode=ro{'' if in_use else '&immutable=1'}"


__all__ = ["NotAVotesDatabase", "check_votes_file"]
