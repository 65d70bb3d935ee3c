"""Votes and checklist annotations in SQLite (WAL mode, versioned schema, one atomic insert per vote).

Each vote is stored with the token of the comparison it answers, under a UNIQUE index (`schema`): a second vote
for the same comparison (four buttons fired at once, a replayed request) fails in SQLite, whatever the app's
threads do.

A store may have a journal (`journal.VoteJournal`): each vote and annotation stored is also handed to it, as a
record of its columns (`records`), once SQLite has it.
"""

from __future__ import annotations

import csv
import io
import json
import sqlite3
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import Any, Protocol

from longform_eval.common.atomic import write_text_atomic
from longform_eval.common.bounded_json import loads_json
from longform_eval.common.errors import LongformEvalError
from longform_eval.common.owned import write_listing
from longform_eval.common.shown import csv_cell
from longform_eval.spaces.export import EXPORT_FILES, EXPORT_MARKER, export_folder
from longform_eval.spaces.records import (
    ANNOTATION_FIELDS,
    ANNOTATION_KEY,
    OUTCOMES,
    TOKENLESS_KEY,
    Vote,
    annotation_row,
    key,
    vote_record,
    vote_row,
)
from longform_eval.spaces.schema import SCHEMA_VERSION, NotAVotesDatabase, migrate
from longform_eval.spaces.votes_file import check_votes_file

BUSY_TIMEOUT_S = 30  # a writer waits this long for another writer's lock (30 clients voting at once) before failing
ANNOTATION_INSERT = f"INSERT INTO annotations ({', '.join(ANNOTATION_FIELDS)}) VALUES ({', '.join('?' * 7)})"
TOKENLESS_MATCH = f"SELECT 1 FROM votes WHERE token IS NULL AND {' AND '.join(f'{k} = ?' for k in TOKENLESS_KEY)}"
ANNOTATION_MATCH = f"SELECT 1 FROM annotations WHERE {' AND '.join(f'{k} = ?' for k in ANNOTATION_KEY)}"
FIT_WEIGHTS_FIELDS = ("row_id", "subcategory", "checklist_scores", "overall_score", "annotator", "model")


class AlreadyVoted(LongformEvalError, Exception):
    """A vote for this comparison token is already stored."""


class Journal(Protocol):
    def append(self, kind: str, records: list[dict[str, Any]]) -> None:
        """Keep `records` (of `kind`: "votes" or "annotations") elsewhere too."""


class VoteStore:
    def __init__(self, path: str | Path, journal: Journal | None = None):
        """The store in the votes database at `path`, created there if there is no file or an empty one, migrated if
        it is of an older schema version.

        Raises:
            NotAVotesDatabase: `path` is not a votes database this toolkit made (another application's, one of a
                newer schema version, not a database): checked read-only, before anything is written.
        """
        self.path = Path(path)
        self.journal = journal
        check_votes_file(self.path)  # read-only: nothing is written to a database that is refused
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.transaction() as connection:  # one process creates or migrates; the others wait, then see it done
            migrate(connection, self.path)  # checks the database again, under the write lock, before changing it
        with self.connect() as connection:
            connection.execute("PRAGMA journal_mode=WAL")

    @contextmanager
    def connect(self) -> Iterator[sqlite3.Connection]:
        """A fresh connection per operation: safe across Gradio's worker threads."""
        connection = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
        try:
            yield connection
        finally:
            connection.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """A connection in one write transaction: committed when the block ends, rolled back if it raises."""
        with self.connect() as connection:
            connection.execute("BEGIN IMMEDIATE")
            try:
                yield connection
            except BaseException:
                connection.execute("ROLLBACK")
                raise
            connection.execute("COMMIT")

    def add_vote(self, vote: Vote) -> int:
        """Insert one vote (one statement, committed at once); its row id.

        Raises:
            AlreadyVoted: a vote with the same comparison token is stored (checked by SQLite's UNIQUE index).
            FieldError: the annotator id, session or token is too long or holds control characters.
        """
        row = vote_row(vote)
        with self.connect() as connection:
            try:
                stored = int(connection.execute(insert_statement(row), tuple(row.values())).lastrowid)
            except sqlite3.IntegrityError as error:
                if token_clash(error):
                    raise AlreadyVoted(f"comparison {vote.token} was already voted on") from error
                raise
        self.keep("votes", [vote_record(row)])
        return stored

    def add_votes(self, votes: Iterable[Vote]) -> int:
        """Insert many votes in one transaction (an import, a benchmark's seed): all of them or none; how many.

        Raises:
            AlreadyVoted, FieldError: as `add_vote`, for the first vote refused (nothing is stored then).
        """
        rows = [vote_row(vote) for vote in votes]
        if not rows:
            return 0
        try:
            with self.transaction() as connection:
                connection.executemany(insert_statement(rows[0]), [tuple(row.values()) for row in rows])
        except sqlite3.IntegrityError as error:
            if token_clash(error):
                raise AlreadyVoted("a comparison among these votes was already voted on") from error
            raise
        self.keep("votes", [vote_record(row) for row in rows])
        return len(rows)

    def import_records(self, votes: list[dict[str, Any]], annotations: list[dict[str, Any]]) -> tuple[int, int]:
        """Store, in one transaction and in order of time, each vote row (as `vote_row` makes it) and annotation (as
        `annotation_row` checks it) that the store lacks: a vote by `vote_identity`, an annotation by ANNOTATION_KEY.

        Returns (votes added, annotations added); a repeated import adds nothing. Nothing goes to the journal: what
        is imported is kept elsewhere already.
        """
        added = [0, 0]
        with self.transaction() as connection:
            for row in sorted(votes, key=lambda row: row["created"]):
                if row["token"] is None and connection.execute(TOKENLESS_MATCH, key(row, TOKENLESS_KEY)).fetchone():
                    continue
                statement = f"{insert_statement(row)} ON CONFLICT (token) DO NOTHING"
                added[0] += connection.execute(statement, tuple(row.values())).rowcount
            for row in sorted(annotations, key=lambda row: row["created"]):
                if not connection.execute(ANNOTATION_MATCH, key(row, ANNOTATION_KEY)).fetchone():
                    added[1] += connection.execute(ANNOTATION_INSERT, annotation_values(row)).rowcount
        return added[0], added[1]

    def keep(self, kind: str, records: list[dict[str, Any]]) -> None:
        """Hand `records`, stored a moment ago, to the journal (if any)."""
        if self.journal is not None and records:
            self.journal.append(kind, records)

    def has_vote(self, token: str) -> bool:
        with self.connect() as connection:
            return connection.execute("SELECT 1 FROM votes WHERE token = ?", (token,)).fetchone() is not None

    def votes(self) -> list[Vote]:
        with self.connect() as connection:
            connection.row_factory = sqlite3.Row
            rows = connection.execute("SELECT * FROM votes ORDER BY id").fetchall()
        return [
            Vote(
                **{k: row[k] for k in row.keys() if k != "id"}  # noqa: SIM118 (sqlite3.Row iterates values)
                | {"judge_flipped": None if row["judge_flipped"] is None else bool(row["judge_flipped"])}
            )
            for row in rows
        ]

    def count(self) -> int:
        with self.connect() as connection:
            return connection.execute("SELECT COUNT(*) FROM votes").fetchone()[0]

    def add_annotation(
        self,
        annotator: str,
        row_id: str,
        subcategory: str,
        model: str,
        checklist_scores: list[float],
        overall_score: float,
    ) -> int:
        row = annotation_row(
            {
                "annotator": annotator,
                "created": time.time(),
                "row_id": row_id,
                "subcategory": subcategory,
                "model": model,
                "checklist_scores": checklist_scores,
                "overall_score": overall_score,
            }
        )
        with self.connect() as connection:
            stored = int(connection.execute(ANNOTATION_INSERT, annotation_values(row)).lastrowid)
        self.keep("annotations", [row])
        return stored

    def annotation_records(self) -> list[dict[str, Any]]:
        """Every annotation with all its columns (the journal's records; `annotations` is fit-weights' schema)."""
        with self.connect() as connection:
            connection.row_factory = sqlite3.Row
            rows = connection.execute(f"SELECT {', '.join(ANNOTATION_FIELDS)} FROM annotations ORDER BY id").fetchall()
        return [dict(row) | {"checklist_scores": self.stored_scores(number, row)} for number, row in enumerate(rows, 1)]

    def stored_scores(self, number: int, row: sqlite3.Row) -> Any:
        """An annotation's checklist_scores column, parsed within `bounded_json`'s bounds (the file may be anyone's)."""
        try:
            return loads_json(row["checklist_scores"])
        except (ValueError, TypeError) as error:
            raise NotAVotesDatabase(f"{self.path}: annotation {number}: field 'checklist_scores': {error}") from None

    def annotations(self) -> list[dict]:
        """In the schema that `longform-eval fit-weights` reads."""
        return [{name: record[name] for name in FIT_WEIGHTS_FIELDS} for record in self.annotation_records()]

    def export(self, folder: str | Path) -> list[Path]:
        """votes.csv (text cells escaped against formula injection), votes.jsonl (raw values) and annotations.jsonl
        (fit-weights schema), and a marker listing them.

        Raises:
            OutputFolderError: `folder` exists and is neither empty nor an earlier export holding nothing but the
                files its marker lists (nothing is written then).
        """
        votes = [asdict(v) for v in self.votes()]  # read before the folder and its marker are made
        annotations = self.annotations()
        folder = export_folder(folder)
        write_listing(folder, EXPORT_MARKER, {"written_by": "longform-eval space-export"}, EXPORT_FILES)
        fields = list(Vote.__dataclass_fields__)
        table = io.StringIO(newline="")
        writer = csv.DictWriter(table, fieldnames=fields)
        writer.writeheader()
        writer.writerows({key: csv_cell(value) for key, value in vote.items()} for vote in votes)
        write_text_atomic(folder / "votes.csv", table.getvalue())
        write_text_atomic(folder / "votes.jsonl", "".join(json.dumps(v) + "\n" for v in votes))
        write_text_atomic(folder / "annotations.jsonl", "".join(json.dumps(a) + "\n" for a in annotations))
        return [folder / name for name in EXPORT_FILES]


def annotation_values(row: dict[str, Any]) -> tuple:
    return tuple(json.dumps(row[k]) if k == "checklist_scores" else row[k] for k in ANNOTATION_FIELDS)


def insert_statement(row: dict[str, Any]) -> str:
    return f"INSERT INTO votes ({', '.join(row)}) VALUES ({', '.join('?' for _ in row)})"


def token_clash(error: sqlite3.IntegrityError) -> bool:
    """Whether SQLite refused a row because the UNIQUE index on the comparison token holds it already."""
    return "votes.token" in str(error)


__all__ = [
    "OUTCOMES",
    "SCHEMA_VERSION",
    "AlreadyVoted",
    "Journal",
    "NotAVotesDatabase",
    "Vote",
    "VoteStore",
    "csv_cell",
]
