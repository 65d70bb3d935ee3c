"""Reading source records with errors that name the file, the row and the field."""

from __future__ import annotations

import json
from collections.abc import Hashable, Iterator
from pathlib import Path
from typing import Any

from .bounded_json import JsonRefused, loads_json
from .errors import SourceError
from .guarded import SOURCE, Kind, read_bytes

INT32_MAX = 2**31 - 1
BOM = "\ufeff"


def read_text(path: Path, kind: Kind = SOURCE) -> str:
    """The whole file as text (a `.gz` file decompressed), read through the guarded reader (a regular file within
    `kind`'s ceiling); a missing, unreadable, empty, binary or non-UTF-8 file is a SourceError."""
    try:
        data = read_bytes(path, kind)
    except FileNotFoundError:
        raise SourceError(path, None, None, "file not found") from None
    except OSError as error:
        raise SourceError(path, None, None, f"cannot be read ({error.strerror or error})") from error
    if b"\0" in data:
        raise SourceError(path, line_at(data, data.index(b"\0")), None, "binary file (NUL byte); expected UTF-8 text")
    try:
        text = data.decode("utf-8").removeprefix(BOM)
    except UnicodeDecodeError as error:
        byte = f"byte 0x{data[error.start]:02x} at offset {error.start}"
        raise SourceError(path, line_at(data, error.start), None, f"not UTF-8 text ({byte})") from error
    if not text.strip():
        raise SourceError(path, None, None, "empty file")
    return text


def line_at(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def read_jsonl(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield (line number, record) for each non-blank line of a JSON Lines file."""
    for line_number, line in enumerate(read_text(path).split("\n"), start=1):
        if not line.strip():
            continue
        try:
            record = loads_json(line)
        except JsonRefused as error:
            raise SourceError(path, line_number, None, f"refused JSON ({error})") from None
        except json.JSONDecodeError as error:
            raise SourceError(path, line_number, None, f"invalid JSON ({error.msg})") from error
        if not isinstance(record, dict):
            raise SourceError(path, line_number, None, "expected a JSON object")
        yield line_number, record


def read_json(path: Path) -> Any:
    try:
        return loads_json(read_text(path))
    except JsonRefused as error:
        raise SourceError(path, None, None, f"refused JSON ({error})") from None
    except json.JSONDecodeError as error:
        raise SourceError(path, error.lineno, None, f"invalid JSON ({error.msg})") from error


def require(path: Path, row: int | str, record: dict[str, Any], field: str, kind: type | tuple[type, ...]) -> Any:
    """Return record[field], or raise a SourceError if it is missing or of the wrong type.

    A bool is not accepted as an int (JSON `true` is not a count) unless `kind` names bool itself.
    """
    if field not in record:
        raise SourceError(path, row, field, "missing")
    value = record[field]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        names = " or ".join(k.__name__ for k in kinds)
        raise SourceError(path, row, field, f"expected {names}, got {type(value).__name__}")
    return value


def require_count(path: Path, row: int | str, record: dict[str, Any], field: str) -> int:
    """record[field] as a positive integer that fits the int32 column it is stored in."""
    value = require(path, row, record, field, int)
    if not 0 < value <= INT32_MAX:
        raise SourceError(path, row, field, f"expected a positive integer, got {value}")
    return value


def require_strings(path: Path, row: int | str, record: dict[str, Any], field: str) -> list[str]:
    """record[field] as a list of strings."""
    values = require(path, row, record, field, list)
    for index, value in enumerate(values):
        if not isinstance(value, str):
            raise SourceError(path, row, f"{field}[{index}]", f"expected str, got {type(value).__name__}")
    return values


class UniqueIds:
    """Where each id was first seen; seeing it again is a SourceError that names both places."""

    def __init__(self, field: str, what: str | None = None):
        self.field = field
        self.what = what or field
        self.seen: dict[Hashable, tuple[Path, int | str]] = {}

    def add(self, path: Path, row: int | str, value: Hashable) -> None:
        if value in self.seen:
            first_path, first_row = self.seen[value]
            where = f"line {first_row}" if isinstance(first_row, int) else str(first_row)
            if first_path != path:
                where += f" of {first_path}"
            raise SourceError(path, row, self.field, f"duplicate {self.what} {shorten(repr(value))} (first at {where})")
        self.seen[value] = (path, row)


def shorten(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 5] + "[...]"
