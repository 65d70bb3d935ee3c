"""Where human labels come from: a JSONL file, the Space's export folder, its journal, or a votes repo on the Hub.

- a JSONL file of labels (`labels`);
- a folder as `space-export` writes it (`votes.jsonl`, `annotations.jsonl`; `votes.csv` is not read) or as the
  Space's journal keeps it (`votes/*.jsonl`, `annotations/*.jsonl`);
- `hf://datasets/ORG/NAME[/PATH]`: a votes repo (the journal a Space keeps with LONGFORM_EVAL_VOTES_REPO, or an export
  pushed with `space-export --push-to`), downloaded with the fenced snapshot (`hub.sources.local_path`).

The Space's SQLite database is read by the Space package (`spaces.calibrate`), which sits above this one.
"""

from __future__ import annotations

from pathlib import Path

from longform_eval.common.errors import SourceError
from longform_eval.common.guarded import HEAD, UnreadableFile, read_head

from ..hub.sources import local_path
from .labels import HumanLabels, read_label_file

EXPORT_FILES = ("votes.jsonl", "annotations.jsonl")
JOURNAL_PATTERNS = ("votes/*.jsonl", "annotations/*.jsonl")
SQLITE_HEADER = b"SQLite format 3\x00"


def read_human_labels(source: str | Path) -> HumanLabels:
    """Every label in `source` (see the module's doc).

    Raises:
        SourceError: a line that is not a label, naming the file, the line and the field; a folder with no label
            file; an SQLite file (read through the Space's command).
        FileNotFoundError: `source` (or the Hub repo) does not exist.
    """
    name = str(source)
    path = local_path(source)
    if not path.exists():
        raise FileNotFoundError(f"{name}: no such file or folder")
    if path.is_dir():
        return read_label_folder(path, name)
    try:
        database = is_sqlite(path)
    except UnreadableFile as error:  # named as given (a Hub path, not its cache)
        raise UnreadableFile(name, error.problem) from None
    if database:
        raise SourceError(name, None, None, "an SQLite database: give it to `longform-eval calibrate --human`")
    return read_label_file(path, name)


def is_sqlite(path: Path) -> bool:
    """Whether the file `path` begins as an SQLite database does; an UnreadableFile naming it if it is no regular file
    (a FIFO, a device, a folder)."""
    return read_head(path, HEAD, len(SQLITE_HEADER)) == SQLITE_HEADER


def label_files(folder: Path) -> list[Path]:
    found = [folder / name for name in EXPORT_FILES if (folder / name).is_file()]
    return found + [path for pattern in JOURNAL_PATTERNS for path in sorted(folder.glob(pattern))]


def read_label_folder(folder: Path, name: str) -> HumanLabels:
    files = label_files(folder)
    if not files:
        what = ", ".join((*EXPORT_FILES, *JOURNAL_PATTERNS))
        raise SourceError(name, None, None, f"no human labels here (expected {what})")
    labels = HumanLabels(name)
    for path in files:
        where = f"{name.rstrip('/')}/{path.relative_to(folder).as_posix()}"
        labels.extend(read_label_file(path, where))
    return labels


__all__ = ["SQLITE_HEADER", "is_sqlite", "read_human_labels", "read_label_folder"]
