"""Released model responses in the HelloBench layout: `<model>/<task>_results.jsonl[.gz]` with `id`, `response`.

The one reader of these files (the runner's import and the Space both use it), streamed through the guarded reader
(`common.guarded`, kind IMPORT: a FIFO, a device or a file past the ceiling is one error naming it). A line that does
not parse (a torn last line, a damaged record, JSON past `bounded_json`'s bounds) is skipped with a warning naming
the file and line.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from longform_eval.common.bounded_json import loads_json
from longform_eval.common.errors import SourceError
from longform_eval.common.guarded import IMPORT, iter_lines

from .hellobench import TASKS


def read_records(path: Path, key: str, strict: bool = False) -> Iterator[dict[str, Any]]:
    """The records of a JSON Lines file (gzipped or not) that carry a text `key` and `response`.

    Any other line is skipped with a warning, or with `strict` (an import: all or nothing) is a SourceError naming
    the file, the line and the field.
    """
    for number, line in iter_lines(path, IMPORT):
        if not line.strip():
            continue
        try:
            record = loads_json(line)
        except ValueError as error:  # JSONDecodeError, UnicodeDecodeError and JsonRefused
            if strict:
                raise SourceError(path, number, None, f"not a JSON record ({error})") from None
            warnings.warn(f"{path}:{number}: skipped a line that is not JSON ({error})", stacklevel=2)
            continue
        field = record_problem(record, key)
        if field is not None:
            if strict:
                got = "not a JSON object" if field == "" else f"expected text, got {shown(record.get(field))}"
                raise SourceError(path, number, field or None, got)
            warnings.warn(f"{path}:{number}: skipped a record without text {key!r} and 'response'", stacklevel=2)
            continue
        yield record


def shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else f"{text[:37]}..."


def record_problem(record: Any, key: str) -> str | None:
    """The first field of `record` that is not text ("" if the record is no object); None if both are text."""
    if not isinstance(record, dict):
        return ""
    return next((field for field in (key, "response") if not isinstance(record.get(field), str)), None)


def released_files(model_dir: str | Path) -> list[Path]:
    """One model's released files, task by task (the gzipped one where both are there); a missing task has none (a
    FIFO or a folder under a task file's name is taken, and refused by `read_records` naming it)."""
    model_dir = Path(model_dir)
    found = []
    for task in TASKS:
        paths = [model_dir / f"{task}_results.jsonl.gz", model_dir / f"{task}_results.jsonl"]
        found += [path for path in paths if path.exists()][:1]
    return found


def released_responses(model_dir: str | Path) -> Iterator[tuple[str, str]]:
    """(id, response) of one model's released files, task by task; a missing task file is skipped."""
    for path in released_files(model_dir):
        for record in read_records(path, "id"):
            yield record["id"], record["response"]
