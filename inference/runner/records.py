"""Append-only JSON Lines logs that survive SIGKILL at any moment.

Each record is one line written with a single `write` and flushed (and fsynced) before the next one. A run
killed mid-write leaves at most one torn last line without its newline; opening the log for appending drops
that fragment, so a resumed run neither loses a finished record nor repeats one.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from ..user_errors import validation_problem

Typed = TypeVar("Typed", bound=BaseModel)


class RecordError(ValueError):
    """A record that parses as JSON but is not a valid record; the message names the file, line and field."""


class RecordLog:
    def __init__(self, path: Path, key_fields: tuple[str, ...]):
        self.path = path
        self.key_fields = key_fields
        self._handle = None

    def key_of(self, record: dict[str, Any]) -> tuple:
        return tuple(record[f] for f in self.key_fields)

    def records(self) -> Iterator[dict[str, Any]]:
        """Complete records in file order; a torn last line is skipped, and so (with a warning) is a damaged one."""
        for _, record in self.numbered():
            yield record

    def numbered(self) -> Iterator[tuple[int, dict[str, Any]]]:
        """(line number, record) for each record that `records` yields."""
        if not self.path.exists():
            return
        with self.path.open("rb") as handle:
            for number, line in enumerate(handle, 1):
                if not line.endswith(b"\n"):
                    break
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                    self.key_of(record)
                except (ValueError, KeyError, TypeError) as error:
                    print(f"warning: {self.path}:{number}: damaged record skipped ({error})", file=sys.stderr)
                    continue
                yield number, record

    def typed(self, model: type[Typed], number: int, record: dict[str, Any]) -> Typed:
        """Line `number`'s record as `model`; a RecordError names the file, the line and the field if it is not one."""
        try:
            return model.model_validate(record)
        except ValidationError as error:
            raise RecordError(
                f"{self.path}:{number}: not a valid {model.__name__}, {validation_problem(error)}; "
                "correct or delete this line"
            ) from None

    def latest(self) -> dict[tuple, dict[str, Any]]:
        """The last record per key (keys are unique unless a run was merged by hand)."""
        return {self.key_of(record): record for record in self.records()}

    def done_keys(self) -> set[tuple]:
        return set(self.latest())

    def drop_torn_tail(self) -> None:
        if not self.path.exists():
            return
        data = self.path.read_bytes()
        if data and not data.endswith(b"\n"):
            with self.path.open("r+b") as handle:
                handle.truncate(data.rfind(b"\n") + 1)

    def append(self, record: dict[str, Any]) -> None:
        """One whole line, on disk before this returns; an OSError (e.g. a full disk) names the file."""
        try:
            if self._handle is None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self.drop_torn_tail()
                self._handle = self.path.open("ab")
            self._handle.write((json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8"))
            self._handle.flush()
            os.fsync(self._handle.fileno())
        except OSError as error:
            self.abandon_handle()  # a torn tail may be left; the next append drops it
            if error.filename is not None:
                raise
            raise OSError(error.errno, error.strerror or str(error), str(self.path)) from error

    def abandon_handle(self) -> None:
        """Close the file without flushing again what could not be written."""
        handle, self._handle = self._handle, None
        if handle is not None:
            with contextlib.suppress(OSError):
                handle.close()

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None
