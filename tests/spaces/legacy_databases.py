"""Votes databases as earlier versions of longform-eval made them, before the application_id mark: schema 1 (as of
commit 9b93bf9) and schema 2 (as of aed3956), their statements copied from those versions."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

VOTES_1 = """CREATE TABLE IF NOT EXISTS votes (
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
    judge_flipped INTEGER
);
"""
ANNOTATIONS = """CREATE TABLE IF NOT EXISTS annotations (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    annotator TEXT NOT NULL,
    created REAL NOT NULL,
    row_id TEXT NOT NULL,
    subcategory TEXT NOT NULL,
    model TEXT NOT NULL,
    checklist_scores TEXT NOT NULL,
    overall_score REAL NOT NULL
);
"""
VOTES_2 = VOTES_1.replace("judge_flipped INTEGER\n", "judge_flipped INTEGER,\n    token TEXT\n")
TOKEN_INDEX = "CREATE UNIQUE INDEX IF NOT EXISTS votes_token ON votes (token);"
OLD_VOTE = (
    "INSERT INTO votes (annotator, session, created, item_id, model_a, model_b, order_shown, outcome) "
    "VALUES ('old', 's', 1.0, 'chat_002', 'm1', 'm2', 'sorted', 'B')"
)


def legacy_database(path: Path, version: int) -> Path:
    """A votes database of schema `version` (1 or 2) in WAL mode, holding one vote without a token."""
    script = VOTES_1 + ANNOTATIONS if version == 1 else VOTES_2 + ANNOTATIONS + TOKEN_INDEX
    with closing(sqlite3.connect(path, isolation_level=None)) as connection:
        connection.execute("PRAGMA journal_mode=WAL")
        connection.executescript(script)
        connection.execute(f"PRAGMA user_version={version}")
        connection.execute(OLD_VOTE)
    return path
