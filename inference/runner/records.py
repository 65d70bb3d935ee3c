"""Append-only JSON Lines logs that survive SIGKILL at any moment.

Each record is one line written with a single `write` and flushed (and fsynced) before the next one. A run
killed mid-write leaves at most one torn last line without its newline; opening the log for appending drops
that fragment, so a resumed run neither loses a finished record nor repeats one.

A log is appended to only if it is the folder's own file: one that is a symlink, has other hard links or is not a
regular file is refused (`UnsafeLogFile`, never followed, truncated or written), as the folder's `.lock` is. Reading
follows a symlink (a run in the Hugging Face cache is a folder of them) but goes through the guarded reader
(`common.guarded`, kind LOG): streamed line by line, what is not a regular file or is too large is refused.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from longform_eval.common.bounded_json import loads_json
from longform_eval.common.errors import LongformEvalError
from longform_eval.common.guarded import LOG, UnreadableFile, iter_lines
from longform_eval.common.shown import harmless
from longform_eval.common.user_errors import validation_problem

from ..secret_values import escaped_fields, scrubbed
from .lock import not_own_file

Typed = TypeVar("Typed", bound=BaseModel)
# O_NOFOLLOW: a symlink is an error (ELOOP), not a way to another file; O_NONBLOCK: a FIFO does not hang the open.
APPEND_FLAGS = os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
OWN_FILE_HINT = (
    "a run appends only to a log file of its own: put a copy of the file in its place, or give another --out"
)


class RecordError(LongformEvalError, ValueError):
    """A record that parses as JSON but is not a valid record; the message names the file, line and field."""


class UnsafeLogFile(LongformEvalError, ValueError):
    """An append-only log that is not the folder's own file (a symlink, a hard link, a folder, a FIFO, ...)."""


def check_own_log(path: Path) -> None:
    """An UnsafeLogFile if `path` exists and is not a regular file of its own (the link itself is looked at)."""
    try:
        found = os.lstat(path)
    except FileNotFoundError:
        return
    problem = "is a symlink" if stat.S_ISLNK(found.st_mode) else not_own_file(found)
    if problem:
        raise UnsafeLogFile(f"{path} {problem}; {OWN_FILE_HINT}")


def open_own_log(path: Path) -> int:
    """`path` opened for appending (created if missing), never through a symlink; an UnsafeLogFile unless it is a
    regular file with no other hard link."""
    try:
        fd = os.open(path, APPEND_FLAGS, 0o644)
    except OSError as error:
        if error.errno in (errno.ELOOP, errno.EISDIR):
            check_own_log(path)
        raise
    problem = not_own_file(os.fstat(fd))
    if problem:
        os.close(fd)
        raise UnsafeLogFile(f"{path} {problem}; {OWN_FILE_HINT}")
    return fd


def drop_torn_tail(fd: int) -> None:
    """Cut a last line left without its newline by a killed writer."""
    size = os.fstat(fd).st_size
    if size and os.pread(fd, 1, size - 1) != b"\n":
        os.ftruncate(fd, os.pread(fd, size, 0).rfind(b"\n") + 1)


_DAMAGE_SAID: set[tuple[str, int, int]] = set()  # (log, first damaged line, how many): said once per process


def say_damaged(path: Path, damaged: list[tuple[int, str]]) -> None:
    """One warning line for the damaged records a log's reading skipped (a command reads a log many times): the
    first with its problem, the others by line."""
    said = (str(path), damaged[0][0], len(damaged)) if damaged else None
    if said is None or said in _DAMAGE_SAID:
        return
    _DAMAGE_SAID.add(said)
    (first, problem), others = damaged[0], [str(number) for number, _ in damaged[1:]]
    more = f"; {len(others)} more skipped (line {', '.join(others[:5])}{', ...' if len(others) > 5 else ''})"
    print(f"warning: {path}:{first}: damaged record skipped ({problem}){more if others else ''}", file=sys.stderr)


class RecordLog:
    def __init__(self, path: Path, key_fields: tuple[str, ...]):
        self.path = path
        self.key_fields = key_fields
        self._handle = None

    def signature(self) -> tuple[int, int, int, int] | None:
        """(device, inode, size, mtime in ns) of the log, None while it does not exist: an append changes it."""
        try:
            found = self.path.stat()
        except FileNotFoundError:
            return None
        return found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns

    def key_of(self, record: dict[str, Any]) -> tuple:
        return tuple(record[f] for f in self.key_fields)

    def records(self) -> Iterator[dict[str, Any]]:
        """Complete records in file order; a torn last line is skipped, and so (with a warning) is a damaged one."""
        for _, record in self.numbered():
            yield record

    def numbered(self) -> Iterator[tuple[int, dict[str, Any]]]:
        """(line number, record) for each record that `records` yields."""
        if not self.path.exists():  # a broken link too: no records yet
            return
        damaged: list[tuple[int, str]] = []
        try:
            for number, line in iter_lines(self.path, LOG):  # a FIFO would block, /dev/zero never end
                if not line.endswith(b"\n"):
                    break
                if not line.strip():
                    continue
                try:
                    record = loads_json(line)
                    self.key_of(record)
                except (ValueError, KeyError, TypeError) as error:
                    damaged.append((number, str(error)))
                    continue
                yield number, record
        except UnreadableFile as error:
            where = f"{self.path}:{error.row}:" if error.row else str(self.path)
            raise UnsafeLogFile(f"{where} {error.problem}; a run's log is a JSON Lines file") from None
        finally:
            say_damaged(self.path, damaged)

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

    def append(self, record: dict[str, Any]) -> None:
        """One whole line, on disk before this returns; an OSError (e.g. a full disk) names the file. Every string
        of the record is scrubbed of the secrets in use first (a server may echo a key inside a successful reply),
        and a lone surrogate is written as its escape (`secret_values.scrubbed`), the record marked: its `escaped`
        field names the fields so written."""
        escaped = escaped_fields(record)
        record = scrubbed(record) | ({"escaped": escaped} if escaped else {})
        try:
            if self._handle is None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                fd = open_own_log(self.path)
                try:
                    drop_torn_tail(fd)
                except OSError:
                    os.close(fd)
                    raise
                self._handle = os.fdopen(fd, "ab")
            line = harmless(json.dumps(record, ensure_ascii=False))  # a bidi override or C1 control as its escape
            self._handle.write((line + "\n").encode("utf-8"))
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
