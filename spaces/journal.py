"""A journal of votes and annotations in a folder: one JSON line per record, only ever appended.

Layout (the same on disk and in the Hub repo that keeps it): `votes/<name>.jsonl` and `annotations/<name>.jsonl`,
one name per process (the time it started and a random suffix), so two processes (two replicas of a Space, a
restart) never write the same file, and only ever the folder's own regular file: a symlink, a hard link or a FIFO
there is refused (`UnsafeLogFile`, as a run's logs are). A line is written whole while holding the lock that the
uploader takes to list the files and their sizes, so an upload holds whole lines only. Reading a journal back
checks every record as the store does and skips a damaged line with a warning naming its file and line; the
store's `import_records` skips what it holds already (a vote by its comparison token), so an import can be
repeated.
"""

from __future__ import annotations

import json
import os
import threading
import time
import uuid
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from longform_eval.common.bounded_json import loads_json
from longform_eval.common.guarded import LABELS, UnreadableFile, iter_lines
from longform_eval.inference.runner.records import open_own_log
from longform_eval.spaces.records import ANNOTATION_KEY, annotation_row, key, vote_identity, vote_of_record, vote_row
from longform_eval.spaces.storage import VoteStore

KINDS = ("votes", "annotations")


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
            with os.fdopen(open_own_log(path), "ab") as file:  # never through a symlink, nor into a FIFO or device
                file.write(text.encode("utf-8"))


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
    """(line number, parsed JSON) for each non-blank line of `path`, streamed through the guarded reader (an
    UnreadableFile naming `where` for a FIFO, a device or a file past LABELS' ceiling); a line that is not JSON within
    `bounded_json`'s bounds is warned about."""
    try:
        for number, line in iter_lines(path, LABELS):
            if not line.strip():
                continue
            try:
                yield number, loads_json(line)
            except ValueError as error:  # UnicodeDecodeError, JSONDecodeError and JsonRefused are ValueErrors
                warnings.warn(f"{where} line {number}: skipped (not a JSON line: {error})", stacklevel=3)
    except UnreadableFile as error:
        raise UnreadableFile(where, error.problem, error.row) from None


def missing_records(store: VoteStore, records: Records) -> Records:
    """What `store` holds and `records` lack: votes by comparison token (or all fields), annotations by key."""
    kept = {vote_identity(row) for row in records.votes}
    annotated = {key(row, ANNOTATION_KEY) for row in records.annotations}
    return Records(
        [row for row in map(vote_row, store.votes()) if vote_identity(row) not in kept],
        [row for row in store.annotation_records() if key(row, ANNOTATION_KEY) not in annotated],
    )


__all__ = ["KINDS", "Records", "VoteJournal", "missing_records", "read_journal"]
