"""The votes database's schema: its tables, its version, and the migration of an older database.

Schema version 2 stores each vote with the token of the comparison it answers, under a UNIQUE index. A version 1
(or unversioned) database gains the column (NULL for its old votes) when it is opened.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

SCHEMA_VERSION = 2
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


def migrate(connection: sqlite3.Connection, path: Path) -> None:
    """Create the schema, or bring a version 1 (or unversioned) database to the current version.

    Raises:
        RuntimeError: the database at `path` has a schema newer than this code's.
    """
    version = connection.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise RuntimeError(f"{path}: schema version {version} is newer than this code ({SCHEMA_VERSION})")
    for statement in TABLES:
        connection.execute(statement)
    if "token" not in {row[1] for row in connection.execute("PRAGMA table_info(votes)")}:
        connection.execute("ALTER TABLE votes ADD COLUMN token TEXT")
    connection.execute(TOKEN_INDEX)
    connection.execute(f"PRAGMA user_version={SCHEMA_VERSION}")


__all__ = ["SCHEMA_VERSION", "migrate"]
