"""Reading source records with errors that name the file, the row and the field."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .errors import SourceError


def read_jsonl(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield (line number, record) for each non-blank line of a JSON Lines file."""
    if not path.is_file():
        raise SourceError(path, None, None, "file not found")
    with path.open(encoding="utf-8") as handle:
        for line_number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                raise SourceError(path, line_number, None, f"invalid JSON ({error.msg})") from error
            if not isinstance(record, dict):
                raise SourceError(path, line_number, None, "expected a JSON object")
            yield line_number, record


def read_json(path: Path) -> Any:
    if not path.is_file():
        raise SourceError(path, None, None, "file not found")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise SourceError(path, error.lineno, None, f"invalid JSON ({error.msg})") from error


def require(path: Path, row: int, record: dict[str, Any], field: str, kind: type | tuple[type, ...]) -> Any:
    """Return record[field], or raise a SourceError if it is missing or of the wrong type."""
    if field not in record:
        raise SourceError(path, row, field, "missing")
    value = record[field]
    if not isinstance(value, kind):
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise SourceError(path, row, field, f"expected {names}, got {type(value).__name__}")
    return value
