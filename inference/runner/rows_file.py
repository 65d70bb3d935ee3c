"""The rows a run evaluated, kept in its folder (rows.json.gz): a run is read without its dataset or upstream source.

A run shared on the Hub is then read on any machine as it was made (no download of the benchmark, no GitHub), and a
finished run opens without loading and selecting the dataset again. The file names what selected the rows (the
benchmark, its config and options, the dataset and revision, the selection); it is used only when the run's
config.yaml names the same and its `dataset_hash` is the one the file was written with (a new command's settings
have none yet: the file's is taken). Anything else (no file, another
selection, a damaged or oversized file, a gzip that decompresses to over 50 times its size, rows that do not give
the hash the file states) and the rows are loaded from the dataset, as before the file existed.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import warnings
from pathlib import Path
from typing import Any

from longform_eval.common.atomic import write_bytes_atomic
from longform_eval.common.bounded_json import loads_json
from longform_eval.common.errors import StaleResultWarning
from longform_eval.common.file_memo import parsed_once
from longform_eval.common.guarded import ROWS, UnreadableFile, gunzipped, read_bytes

from ..benchmarks.selection import rows_hash
from .config import RunConfig

ROWS_FILE = "rows.json.gz"
ROWS_KEPT = 4  # the parsed rows of this many rows files kept in a process (tens of MB each)
FORMAT = 1
IDENTITY_FIELDS = (
    "benchmark",
    "benchmark_config",
    "benchmark_args",
    "dataset",
    "dataset_revision",
    "source",
    "selection",
)


def rows_identity(config: RunConfig) -> dict[str, Any]:
    """What selects a run's rows, as config.yaml states it."""
    return {name: value for name, value in config.model_dump(mode="json").items() if name in IDENTITY_FIELDS}


def stored_rows(folder: Path, config: RunConfig) -> tuple[list[dict[str, Any]], str] | None:
    """(rows, their `dataset_hash`) from the folder's rows file, if they are those `config` selects (the same
    selection, and the same `dataset_hash` where `config` has one)."""
    path = Path(folder) / ROWS_FILE
    stored = rows_file_bytes(path)  # as stored (compressed)
    digest = hashlib.sha256(stored or b"").hexdigest()
    # Parsed once per content: the runs of one benchmark config keep the same rows (read-only, as every row is).
    document, as_written = None, False
    if stored is not None:
        document, as_written = parsed_once(
            ROWS_FILE, digest, lambda: parsed_rows_file(unzipped(path, stored)), most=ROWS_KEPT
        )
    if document is None or document.get("identity") != rows_identity(config):
        return None
    rows = document.get("rows")
    if not isinstance(rows, list) or not all(isinstance(row, dict) for row in rows):
        return None
    found = document.get("hash")  # what the file states; checked against the rows it holds, not believed
    if not isinstance(found, str) or not found or config.dataset_hash not in ("", found):
        return None
    if not (as_written or hash_holds(digest, rows, found)):
        warnings.warn(
            StaleResultWarning(
                f"{path}: its rows do not give the hash it states (edited since the run wrote "
                "it); not used: the rows are loaded from the dataset"
            ),
            stacklevel=2,
        )
        return None
    return list(rows), found


# The rows files whose rows were found to give the hash they state, by the SHA-256 of their bytes as stored:
# the runs of one benchmark config keep the same file, checked once per process.
CHECKED: dict[str, str] = {}


def hash_holds(content: str, rows: list[dict[str, Any]], stated: str) -> bool:
    """Whether `rows` give `stated`; computed once per content (`content`: the file's digest)."""
    if CHECKED.get(content) == stated:
        return True
    holds = rows_hash(rows) == stated
    if holds:
        CHECKED[content] = stated
    return holds


def read_rows_file(path: Path) -> dict[str, Any] | None:
    """The rows file's document; None where there is none, or it is not a regular file, too large (decompressed) or
    damaged (`rows_file_bytes`, `unzipped`)."""
    return rows_document(unzipped(path, rows_file_bytes(path)))


def rows_file_bytes(path: Path) -> bytes | None:
    """The rows file's bytes as stored; None where it cannot be read (missing, not a regular file, too large)."""
    try:
        return read_bytes(path, ROWS, follow_symlinks=is_snapshot_link(path), decompress=False)
    except (OSError, UnreadableFile):
        return None


def unzipped(path: Path, stored: bytes | None) -> bytes | None:
    """The rows file's bytes as stored, decompressed (`gunzipped`); None where they are not gzip within bounds."""
    try:
        return None if stored is None else gunzipped(stored, path, ROWS)
    except UnreadableFile:
        return None


def parsed_rows_file(content: bytes | None) -> tuple[dict[str, Any] | None, bool]:
    """The rows file's document, and whether its rows' text, as stored, gives the hash it states (a file in the form
    `write_rows_file` writes: checked without serializing the rows again; any other form is checked by `hash_holds`).
    Rows edited since cannot keep a hash the dataset's rows give: that would take a SHA-256 collision with their
    canonical text. (A file made by hand in another form may state the hash of its own text: a hash no dataset gives,
    so its run is compared with no other.)"""
    document = rows_document(content)
    if content is None or document is None or set(document) != {"format", "hash", "identity", "rows"}:
        return document, False
    head = {key: document[key] for key in ("format", "hash", "identity")}
    try:  # a lone surrogate in it: not a file this code wrote
        prefix = (json.dumps(head, ensure_ascii=False, sort_keys=True, default=str)[:-1] + ', "rows": ').encode()
    except UnicodeEncodeError:
        return document, False
    if not content.startswith(prefix) or not content.endswith(b"}"):
        return document, False
    return document, hashlib.sha256(content[len(prefix) : -1]).hexdigest() == document["hash"]


def rows_document(content: bytes | None) -> dict[str, Any] | None:
    """The rows file's document in `content`; None where it is not JSON within bounds, or not of this format."""
    try:
        document = None if content is None else loads_json(content)
    except ValueError:
        return None
    return document if isinstance(document, dict) and document.get("format") == FORMAT else None


def is_snapshot_link(path: Path) -> bool:
    """Whether `path` is a Hugging Face cache snapshot's link to its blob (`.../snapshots/<commit>/rows.json.gz` ->
    `../../blobs/<hash>`: a run read in the cache of an `hf://` path). Any other link is refused, as before."""
    if not path.is_symlink():
        return False
    snapshots = next((parent for parent in path.parents if parent.name == "snapshots"), None)
    return snapshots is not None and path.resolve().parent == (snapshots.parent / "blobs").resolve()


def write_rows_file(folder: Path, config: RunConfig, rows: list[dict[str, Any]]) -> None:
    """Keep `rows` (those `config` selects, `config.dataset_hash` theirs) in the folder."""
    document = {"format": FORMAT, "identity": rows_identity(config), "hash": config.dataset_hash, "rows": rows}
    text = json.dumps(document, ensure_ascii=False, sort_keys=True, default=str)
    write_bytes_atomic(Path(folder) / ROWS_FILE, gzip.compress(text.encode("utf-8"), compresslevel=6, mtime=0))
