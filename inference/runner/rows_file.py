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
import json
import warnings
from pathlib import Path
from typing import Any

from longform_eval.common.atomic import write_bytes_atomic
from longform_eval.common.errors import StaleResultWarning
from longform_eval.common.guarded import ROWS, file_state, read_cache_json

from ..benchmarks.selection import rows_hash
from .config import RunConfig

ROWS_FILE = "rows.json.gz"
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
    state = file_state(path, follow_symlinks=True)  # before reading: a file edited meanwhile is not taken as checked
    document = read_rows_file(path)
    if document is None or document.get("identity") != rows_identity(config):
        return None
    rows = document.get("rows")
    if not isinstance(rows, list) or not all(isinstance(row, dict) for row in rows):
        return None
    found = document.get("hash")  # what the file states; checked against the rows it holds, not believed
    if not isinstance(found, str) or not found or config.dataset_hash not in ("", found):
        return None
    if not hash_holds((str(path.resolve()), state), rows, found):
        warnings.warn(
            StaleResultWarning(
                f"{path}: its rows do not give the hash it states (edited since the run wrote "
                "it); not used: the rows are loaded from the dataset"
            ),
            stacklevel=2,
        )
        return None
    return rows, found


# Rows files whose rows were found to give the hash they state, by the file as it stood then: (path, stat) -> hash.
CHECKED: dict[tuple[str, tuple[int, ...]], str] = {}


def hash_holds(key: tuple[str, tuple[int, ...]], rows: list[dict[str, Any]], stated: str) -> bool:
    """Whether `rows` give `stated`; computed once per file as it stands (`key`: its path and `file_state`; a rewritten
    or replaced file is hashed again)."""
    if CHECKED.get(key) == stated:
        return True
    holds = rows_hash(rows) == stated
    if holds and key[1]:
        CHECKED[key] = stated
    return holds


def read_rows_file(path: Path) -> dict[str, Any] | None:
    """The rows file's document; None where there is none, or it is not a regular file, too large (decompressed) or
    damaged (`read_cache_json`)."""
    document = read_cache_json(path, ROWS, follow_symlinks=is_snapshot_link(path))
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
