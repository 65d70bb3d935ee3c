"""Where `space-export` writes: a new or empty folder, or an earlier export holding only the files it lists.

An export folder carries a marker listing the files it wrote; a later export overwrites those and nothing else,
and any other folder is refused before a file is written (or the vote database opened).
"""

from __future__ import annotations

from pathlib import Path

from longform_eval.common.errors import OutputFolderError
from longform_eval.common.owned import listed_files

EXPORT_FILES = ("votes.csv", "votes.jsonl", "annotations.jsonl")
EXPORT_MARKER = ".longform-eval-export.json"  # lists EXPORT_FILES: a later export may overwrite them


def export_folder(folder: str | Path) -> Path:
    """`folder`, created if missing, once `check_export_folder` accepts it."""
    folder = Path(folder)
    check_export_folder(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise OutputFolderError(f"--out {folder}: cannot create it ({error.strerror or error})") from error
    return folder


def check_export_folder(folder: Path) -> None:
    """Raise OutputFolderError (a one-line reason naming `folder`) unless it is missing, empty or an earlier export
    holding nothing but the files its marker lists."""
    target = folder.resolve()
    never = "space-export writes only into a new or empty folder or an earlier export; choose another --out"
    if target.exists() and not target.is_dir():
        raise OutputFolderError(f"--out {folder}: exists and is not a folder; {never}")
    try:
        foreign = target.is_dir() and listed_files(target, EXPORT_MARKER) is None
    except OSError as error:
        raise OutputFolderError(f"--out {folder}: cannot read it ({error.strerror or error})") from error
    if foreign:
        raise OutputFolderError(
            f"--out {folder}: refusing to write into it: it is not empty and not an earlier export "
            f"(no {EXPORT_MARKER} listing everything in it); {never}"
        )


__all__ = ["EXPORT_FILES", "EXPORT_MARKER", "check_export_folder", "export_folder"]
