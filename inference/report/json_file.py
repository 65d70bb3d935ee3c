"""The JSON files of a run folder the toolkit wrote itself (scores.json, timings.json), read as it wrote them.

Python's `json` reads the tokens NaN, Infinity and -Infinity, and a number too large for a float (1e999) as
infinity; the toolkit never writes any of them (a figure it cannot compute is null), so one found in these files
means the file was damaged: it is refused, naming the file and the field, instead of being printed as `nan`.

The file is read through the guarded reader (`common.guarded`, kind DOCUMENT: a regular file of at most 64 MiB) and
parsed within `bounded_json`'s depth and integer bounds, so that `non_finite` never recurses without bound.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from longform_eval.common.bounded_json import JsonRefused, loads_json
from longform_eval.common.errors import LongformEvalError
from longform_eval.common.guarded import DOCUMENT, read_bytes
from longform_eval.common.user_errors import document_problem


class DamagedFile(LongformEvalError, ValueError):
    """A run-folder file that is not as the toolkit writes it; the message names the file and what is wrong."""


def read_json(path: Path, advice: str) -> Any:
    """The JSON document in `path`; a DamagedFile naming `path` (and the field) if it is not valid JSON or holds a
    number that is not finite. `advice` ends the message: how to get a good file back. An UnreadableFile (a
    SourceError naming `path`) if it is not a regular file or is larger than DOCUMENT's ceiling."""
    return json_document(path, read_bytes(path, DOCUMENT), advice)


def json_document(path: Path, data: bytes, advice: str) -> Any:
    """`data`, the content of `path` as just read, as `read_json` reads it."""
    try:
        document = loads_json(data)
    except JsonRefused as error:
        raise DamagedFile(f"{path}: refused JSON ({error}); {advice}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise DamagedFile(f"{path}: not valid JSON ({error}); {advice}") from None
    found = next(non_finite(document), None)
    if found is not None:
        where, value = found
        name = "NaN" if math.isnan(value) else f"{'-' if value < 0 else ''}Infinity"
        raise DamagedFile(
            f"{path}: field '{where}': {name} is not a number (a figure is a finite number, or null for none); {advice}"
        )
    return document


def non_finite(value: Any, where: str = "") -> Iterator[tuple[str, float]]:
    """(dotted field path, value) of every NaN or infinite number in a JSON document, in document order."""
    if isinstance(value, float) and not math.isfinite(value):
        yield where or "value", value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from non_finite(item, f"{where}.{key}" if where else str(key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from non_finite(item, f"{where}.{index}" if where else str(index))


def check_layout(path: Path, layout: type[BaseModel], document: Any, advice: str) -> None:
    """A DamagedFile naming `path` and the first field of `document` that `layout` refuses (strict types)."""
    try:
        layout.model_validate(document, strict=True)
    except ValidationError as error:
        raise DamagedFile(f"{path}: {document_problem(error, document)}; {advice}") from None
