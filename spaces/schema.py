"""The votes database's schema: its tables, its version, the mark of a database this toolkit made, and the
migration of an older database.

Schema version 2 stores each vote with the token of the comparison it answers, under a UNIQUE index. A version 1
(or unversioned) database gains the column (NULL for its old votes) when it is opened.

A votes database carries PRAGMA application_id = APPLICATION_ID. One made before that mark existed is recognised
by its layout: exactly the tables (and index) of schema version 1 or 2, nothing else. Any other database (another
application's, one of a newer schema version) is refused (`NotAVotesDatabase`) before anything is written to it.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from functools import cache
from pathlib import Path

from longform_eval.common.errors import LongformEvalError

SCHEMA_VERSION = 2
APPLICATION_ID = int.from_bytes(b"LFEv", "big")  # PRAGMA application_id of a votes database longform-eval made
TABLES = (
    """CREATE TABLE IF NOT EXISTS votes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    annotator TEXT NOT NULL,
    session TEXT NOT NULL,
    created REAL NOT NULL,
    item_id TEXT NOT NULL,
    model_a TEXT NOT NULL,
    model_b TEXT NOT NULL,
    order_shown TEXT NOT NULL,
    outcome TEXT NOT NULL,
    judge_outcome TEXT,
    judge_flipped INTEGER,
    token TEXT
)""",
    """CREATE TABLE IF NOT EXISTS annotations (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    annotator TEXT NOT NULL,
    created REAL NOT NULL,
    row_id TEXT NOT NULL,
    subcategory TEXT NOT NULL,
    model TEXT NOT NULL,
    checklist_scores TEXT NOT NULL,
    overall_score REAL NOT NULL
)""",
)
TOKEN_INDEX = "CREATE UNIQUE INDEX IF NOT EXISTS votes_token ON votes (token)"
# SQLite's own objects (sqlite_sequence of AUTOINCREMENT, sqlite_stat* of ANALYZE); no user object may be so named.
OWN_OBJECTS = r"name NOT LIKE 'sqlite\_%' ESCAPE '\'"
Layout = dict[str, tuple]


class NotAVotesDatabase(LongformEvalError, ValueError):
    """A file the Space and space-export do not open: not a votes database of theirs, nor a new (empty) file."""


def layout(connection: sqlite3.Connection) -> Layout:
    """Each table, index, view and trigger of the database by name: a table as its columns (name, type, not null,
    default, primary key), any other object as its kind, table and SQL."""
    found: Layout = {}
    for kind, name, table, sql in connection.execute(
        f"SELECT type, name, tbl_name, sql FROM sqlite_master WHERE {OWN_OBJECTS}"
    ):
        if kind == "table":
            columns = connection.execute(
                'SELECT name, type, "notnull", dflt_value, pk FROM pragma_table_info(?)', (name,)
            )
            found[name] = (kind, tuple(columns))
        else:
            found[name] = (kind, table, " ".join((sql or "").split()))
    return found


@cache
def own_layouts() -> dict[int, Layout]:
    """The layout of a database this toolkit made, by schema version (version 1: no token column, no index)."""
    with closing(sqlite3.connect(":memory:")) as memory:
        create(memory)
        current = layout(memory)
    kind, columns = current["votes"]
    first = {"votes": (kind, tuple(c for c in columns if c[0] != "token")), "annotations": current["annotations"]}
    return {1: first, SCHEMA_VERSION: current}


def refusal(connection: sqlite3.Connection) -> str | None:
    """Why the database open in `connection` is not one to open (None: a votes database of this toolkit, of this
    schema version or an older one, or a database with nothing in it). Reads only."""
    application_id = connection.execute("PRAGMA application_id").fetchone()[0]
    version = connection.execute("PRAGMA user_version").fetchone()[0]
    found = layout(connection)
    ours = application_id == APPLICATION_ID
    if application_id not in (0, APPLICATION_ID):
        return (
            f"is another application's database (application_id {application_id:#x}); the Space and space-export "
            "open only a votes database they made, or a new file"
        )
    if version > SCHEMA_VERSION and (ours or not found):
        return (
            f"has votes schema version {version}, newer than this longform-eval knows ({SCHEMA_VERSION}); "
            "upgrade longform-eval to open it"
        )
    if ours or (version == 0 and not found):
        return None
    legacy = own_layouts()
    if found == legacy.get(version) or (version == 0 and found == legacy[1]):  # made before the application_id
        return None
    names = ", ".join(sorted(found)) or "none"
    return (
        f"is not a longform-eval votes database (its tables, indexes and views: {names}; user_version {version}); "
        "the Space and space-export open only a votes database they made, or a new file"
    )


def create(connection: sqlite3.Connection) -> None:
    """The current schema's tables and index (those missing), and the mark of this toolkit."""
    for statement in TABLES:
        connection.execute(statement)
    connection.execute(TOKEN_INDEX)
    connection.execute(f"PRAGMA application_id={APPLICATION_ID}")


def migrate(connection: sqlite3.Connection, path: Path) -> None:
    """Create the schema, or bring a version 1 (or unversioned) database to the current version (in the caller's
    transaction).

    Raises:
        NotAVotesDatabase: the database at `path` is not one of this toolkit's, or of a newer schema version (nothing
            is changed then).
    """
    problem = refusal(connection)
    if problem:
        raise NotAVotesDatabase(f"{path}: {problem}")
    columns = {row[0] for row in connection.execute("SELECT name FROM pragma_table_info('votes')")}
    if columns and "token" not in columns:
        connection.execute("ALTER TABLE votes ADD COLUMN token TEXT")
    create(connection)
    connection.execute(f"PRAGMA user_version={SCHEMA_VERSION}")


__all__ = ["APPLICATION_ID", "SCHEMA_VERSION", "NotAVotesDatabase", "layout", "migrate", "refusal"]
