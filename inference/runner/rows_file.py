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
from longform_eval.common.bounded_json import loads_json
from longform_eval.common.errors import StaleResultWarning
from longform_eval.common.guarded import ROWS, read_bytes, read_cache_json

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
    document = read_rows_file(Path(folder) / ROWS_FILE)
    if document is None or document.get("identity") != rows_identity(config):
        return None
    rows = document.get("rows")
    if not isinstance(rows, list) or not all(isinstance(row, dict) for row in rows):
        return None
    found = document.get("hash")  # what the file states; checked against the rows it holds, not believed
    if not isinstance(found, str) or not found or config.dataset_hash not in ("", found):
        return None
    if rows_hash(rows) != found:
        warnings.warn(
            StaleResultWarning(
                f"{Path(folder) / ROWS_FILE}: its rows do not give the hash it states (edited since the run wrote "
                "it); not used: the rows are loaded from the dataset"
            ),
            stacklevel=2,
        )
        return None
    return rows, found


def read_rows_file(path: Path) -> dict[str, Any] | None:
    """The rows file's document; None where there is none, or it is not a regular file, too large (decompressed) or
    damaged (`read_cache_json`)."""
    document = read_snapshot_json(path) if is_snapshot_link(path) else read_cache_json(path, ROWS)
    return document if isinstance(document, dict) and document.get("format") == FORMAT else None


def is_snapshot_link(path: Path) -> bool:
    """Whether `path` is a Hugging Face cache snapshot's link to its blob (`.../snapshots/<commit>/rows.json.gz` ->
    `../../blobs/<hash>`: a run read in the cache of an `hf://` path). Any other link is refused, as before."""
    if not path.is_symlink():
        return False
    snapshots = next((parent for parent in path.parents if parent.name == "snapshots"), None)
    return snapshots is not None and path.resolve().parent == (snapshots.parent / "blobs").resolve()


def read_snapshot_json(path: Path) -> Any:
    """The document the snapshot's link leads to, within ROWS' ceilings; None where it cannot be read."""
    try:
        return loads_json(read_bytes(path, ROWS))
    except (OSError, ValueError):  # UnreadableFile and JsonRefused are ValueErrors
        return None


def write_rows_file(folder: Path, config: RunConfig, rows: list[dict[str, Any]]) -> None:
    """Keep `rows` (those `config` selects, `config.dataset_hash` theirs) in the folder."""
    document = {"format": FORMAT, "identity": rows_identity(config), "hash": config.dataset_hash, "rows": rows}
    text = json.dumps(document, ensure_ascii=False, sort_keys=True, default=str)
    write_bytes_atomic(Path(folder) / ROWS_FILE, gzip.compress(text.encode("utf-8"), compresslevel=6, mtime=0))
