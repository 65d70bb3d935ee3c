"""A journal of votes and annotations in a folder: one JSON line per record, only ever appended.

Layout (the same on disk and in the Hub repo that keeps it): `votes/<name>.jsonl` and `annotations/<name>.jsonl`,
one name per process (the time it started and a random suffix), so two processes (two replicas of a Space, a
restart) never write the same file. A line is written whole while holding the lock that the uploader takes to
list the files and their sizes, so an upload holds whole lines only. Reading a journal back checks every record
as the store does and skips a damaged line with a warning naming its file and line; importing it into a store
skips what the store holds already (a vote by its comparison token), so an import can be repeated.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from longform_eval.spaces.records import annotation_row, vote_of_record, vote_row
from longform_eval.spaces.storage import ANNOTATION_INSERT, VoteStore, annotation_values, insert_statement

KINDS = ("votes", "annotations")
TOKENLESS_KEY = ("annotator", "session", "created", "item_id", "model_a", "model_b")
TOKENLESS_MATCH = f"SELECT 1 FROM votes WHERE token IS NULL AND {' AND '.join(f'{k} = ?' for k in TOKENLESS_KEY)}"
ANNOTATION_KEY = ("annotator", "created", "row_id", "model")
ANNOTATION_MATCH = f"SELECT 1 FROM annotations WHERE {' AND '.join(f'{k} = ?' for k in ANNOTATION_KEY)}"


class VoteJournal:
    """This process's journal files in `folder`; `append` is what `VoteStore` calls for each record it stores."""

    def __init__(self, folder: str | Path, lock: threading.Lock | None = None, name: str | None = None):
        self.folder = Path(folder)
        self.lock = lock or threading.Lock()
        self.name = name or f"{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}-{uuid.uuid4().hex[:12]}"

    def path(self, kind: str) -> Path:
        return self.folder / kind / f"{self.name}.jsonl"

    def append(self, kind: str, records: list[dict[str, Any]]) -> None:
        if not records:
            return
        text = "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records)
        path = self.path(kind)
        with self.lock:
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("a", encoding="utf-8") as file:
                file.write(text)


@dataclass
class Records:
    """A journal's checked contents: votes as the store's rows, annotations as its records."""

    votes: list[dict[str, Any]] = field(default_factory=list)
    annotations: list[dict[str, Any]] = field(default_factory=list)


def read_journal(folder: str | Path, label: str | None = None) -> Records:
    """Every record in the journal files under `folder` that passes the store's checks; each other line is skipped
    with a warning naming `label` (default: the folder), the file and the line."""
    records = Records()
    for kind in KINDS:
        for path in sorted((Path(folder) / kind).glob("*.jsonl")):
            where = f"{label or folder}/{path.relative_to(folder).as_posix()}"
            for number, record in lines(path, where):
                try:
                    checked = vote_row(vote_of_record(record)) if kind == "votes" else annotation_row(record)
                except (ValueError, TypeError) as error:
                    warnings.warn(f"{where} line {number}: skipped ({error})", stacklevel=2)
                    continue
                getattr(records, kind).append(checked)
    return records


def lines(path: Path, where: str) -> Iterator[tuple[int, Any]]:
    """(line number, parsed JSON) for each non-blank line of `path`; a line that is not JSON is warned about."""
    for number, line in enumerate(path.read_bytes().split(b"\n"), 1):
        if not line.strip():
            continue
        try:
            yield number, json.loads(line.decode("utf-8"))
        except ValueError as error:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
            warnings.warn(f"{where} line {number}: skipped (not a JSON line: {error})", stacklevel=3)


def import_records(store: VoteStore, records: Records) -> tuple[int, int]:
    """Store, in order of time, each vote and annotation of `records` that `store` lacks; (new votes, new
    annotations). Nothing goes to the store's journal (these records are kept already)."""
    votes = sorted(records.votes, key=lambda row: row["created"])
    annotations = sorted(records.annotations, key=lambda row: row["created"])
    added = [0, 0]
    with store.connect() as connection:
        connection.execute("BEGIN IMMEDIATE")  # closed without COMMIT on an error: rolled back
        for row in votes:
            if row["token"] is None and connection.execute(TOKENLESS_MATCH, key(row, TOKENLESS_KEY)).fetchone():
                continue
            statement = f"{insert_statement(row)} ON CONFLICT (token) DO NOTHING"
            added[0] += connection.execute(statement, tuple(row.values())).rowcount
        for row in annotations:
            if not connection.execute(ANNOTATION_MATCH, key(row, ANNOTATION_KEY)).fetchone():
                connection.execute(ANNOTATION_INSERT, annotation_values(row))
                added[1] += 1
        connection.execute("COMMIT")
    return added[0], added[1]


def missing_records(store: VoteStore, records: Records) -> Records:
    """What `store` holds and `records` lack: votes by comparison token (or all fields), annotations by key."""
    kept = {vote_identity(row) for row in records.votes}
    annotated = {key(row, ANNOTATION_KEY) for row in records.annotations}
    return Records(
        [row for row in map(vote_row, store.votes()) if vote_identity(row) not in kept],
        [row for row in store.annotation_records() if key(row, ANNOTATION_KEY) not in annotated],
    )


def vote_identity(row: dict[str, Any]) -> tuple:
    """What tells two votes apart: the comparison token, or (a vote without one) the fields of TOKENLESS_KEY."""
    return ("token", row["token"]) if row["token"] is not None else key(row, TOKENLESS_KEY)


def key(row: dict[str, Any], names: tuple[str, ...]) -> tuple:
    return tuple(row[name] for name in names)


__all__ = ["KINDS", "Records", "VoteJournal", "import_records", "missing_records", "read_journal"]
