"""Released model responses in the HelloBench layout: `<model>/<task>_results.jsonl[.gz]` with `id`, `response`.

The one reader of these files (the runner's import and the Space both use it). A line that does not parse (a
torn last line, a damaged record) is skipped with a warning naming the file and line.
"""

from __future__ import annotations

import gzip
import json
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .hellobench import TASKS


def read_records(path: Path, key: str) -> Iterator[dict[str, Any]]:
    """The records of a JSON Lines file (gzipped or not) that carry a text `key` and `response`."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except ValueError as error:  # JSONDecodeError and UnicodeDecodeError
                warnings.warn(f"{path}:{number}: skipped a line that is not JSON ({error})", stacklevel=2)
                continue
            if not (
                isinstance(record, dict)
                and isinstance(record.get(key), str)
                and isinstance(record.get("response"), str)
            ):
                warnings.warn(f"{path}:{number}: skipped a record without text {key!r} and 'response'", stacklevel=2)
                continue
            yield record


def released_responses(model_dir: str | Path) -> Iterator[tuple[str, str]]:
    """(id, response) of one model's released files, task by task; a missing task file is skipped."""
    model_dir = Path(model_dir)
    for task in TASKS:
        for path in (model_dir / f"{task}_results.jsonl.gz", model_dir / f"{task}_results.jsonl"):
            if path.is_file():
                for record in read_records(path, "id"):
                    yield record["id"], record["response"]
                break
