"""What this toolkit may replace: folders whose marker lists every file in them, and files it recognises as its own.

A command never deletes or overwrites anything it did not write. A folder is ours when it is empty, or when it
holds a marker (a JSON file listing the files a command wrote) and nothing else than those files and the folders
on their way (and the temporary files a writer killed while writing one of them left); replacing it removes exactly
these, then the folders they leave empty.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Callable, Collection, Iterable
from pathlib import Path, PurePosixPath
from typing import Any

from .atomic import write_text_atomic
from .errors import OutputFileError
from .guarded import HEAD, MARKER, UnreadableFile, read_cache_json, read_head


def safe_names(value: Any) -> list[str] | None:
    """`value` as a list of relative POSIX paths that stay inside their folder, or None if it is not one."""
    if not isinstance(value, list):
        return None
    for name in value:
        if not isinstance(name, str) or not name or "\0" in name:
            return None
        path = PurePosixPath(name)
        if path.is_absolute() or path.as_posix() != name or any(part in ("", ".", "..") for part in path.parts):
            return None
    return list(value)


def write_listing(folder: Path, marker: str, fields: dict[str, Any], files: Iterable[str]) -> None:
    """Write `folder/marker`: `fields` plus the sorted `files` (relative POSIX paths) a command writes there."""
    listing = {**fields, "files": sorted(files)}
    write_text_atomic(folder / marker, json.dumps(listing, indent=2) + "\n")


def read_listing(folder: Path, marker: str) -> dict[str, Any] | None:
    """The marker in `folder` when it is a regular file holding a JSON object with a safe `files` list, else None."""
    listing = read_cache_json(folder / marker, MARKER)  # None: a symlink, no regular file, too large, not JSON
    if not isinstance(listing, dict) or safe_names(listing.get("files")) is None:
        return None
    return listing


# `atomic.replacing`'s temporary file of `<name>`: `.<name>.<8 random characters>.tmp` (tempfile.mkstemp)
TEMPORARY = re.compile(r"\.(?P<name>.+)\.[a-z0-9_]{8}\.tmp")


def temporary_of(relative: str, listed: Collection[str]) -> bool:
    """Whether `relative` is the temporary file a writer killed while it wrote the listed file beside it left."""
    path = PurePosixPath(relative)
    found = TEMPORARY.fullmatch(path.name)
    return found is not None and (path.parent / found["name"]).as_posix().removeprefix("./") in listed


def temporaries(folder: Path, files: Collection[str]) -> list[str]:
    """The temporary files of listed files under `folder` (regular files only): a killed writer's, the toolkit's."""
    listed = set(files)
    folders = {PurePosixPath(name).parent for name in listed}
    found = []
    for parent in sorted(folders):
        try:
            entries = sorted((folder / parent).iterdir())
        except OSError:
            continue
        for entry in entries:
            relative = (parent / entry.name).as_posix().removeprefix("./")
            if temporary_of(relative, listed) and stat.S_ISREG(entry.lstat().st_mode):
                found.append(relative)
    return found


def unlisted_entries(folder: Path, files: Collection[str]) -> list[str]:
    """Entries under `folder` that are neither a listed regular file (or a killed writer's temporary file of one)
    nor a real folder listed or on the way to one.

    Links, special files and unlisted folders count as unlisted (and are not entered).
    """
    listed = set(files)
    on_the_way = {parent.as_posix() for name in listed for parent in PurePosixPath(name).parents} - {"."}
    unlisted = []
    for root, folders, names in os.walk(folder, onerror=raise_error):
        for name in sorted([*folders, *names]):
            path = Path(root, name)
            relative = path.relative_to(folder).as_posix()
            mode = path.lstat().st_mode
            if stat.S_ISDIR(mode) and (relative in on_the_way or relative in listed):
                continue
            if stat.S_ISREG(mode) and (relative in listed or temporary_of(relative, listed)):
                continue
            unlisted.append(relative + ("/" if stat.S_ISDIR(mode) else ""))
            if name in folders:
                folders.remove(name)
    return unlisted


def raise_error(error: OSError) -> None:
    """For `os.walk`: a folder that cannot be read is not known to hold only listed files."""
    raise error


def listed_files(folder: Path, marker: str) -> list[str] | None:
    """The files to remove to empty `folder` (its marker last), or None if it holds anything else.

    An empty folder gives [].
    """
    if not any(folder.iterdir()):
        return []
    listing = read_listing(folder, marker)
    if listing is None:
        return None
    files = [*listing["files"], marker]
    return None if unlisted_entries(folder, files) else [*temporaries(folder, files), *files]


def remove_listed(folder: Path, files: Iterable[str]) -> bool:
    """Remove the listed regular files, then the folders (listed or holding them) left empty, then `folder` if empty.

    Anything else (a file added meanwhile, a link) stays, and so do the folders holding it. Returns whether
    `folder` is gone.
    """
    files = list(files)
    for name in files:
        path = folder / name
        try:
            if stat.S_ISREG(path.lstat().st_mode):
                path.unlink()
        except OSError:  # gone already, or not ours to remove: the folders holding it stay
            continue
    folders = {path for name in files for path in (PurePosixPath(name), *PurePosixPath(name).parents)}
    for path in sorted(folders - {PurePosixPath(".")}, key=lambda p: len(p.parts), reverse=True):
        remove_empty_folder(folder / path)
    return remove_empty_folder(folder)


def remove_empty_folder(folder: Path) -> bool:
    """rmdir `folder` if it is an empty real folder; whether it no longer exists."""
    try:
        if stat.S_ISDIR(folder.lstat().st_mode):
            folder.rmdir()
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return not (folder.exists() or folder.is_symlink())


def shown(entries: list[str], limit: int = 5) -> str:
    """`a, b, c` or `a, b, c, d, e and 3 more`."""
    return ", ".join(entries[:limit]) + (f" and {len(entries) - limit} more" if len(entries) > limit else "")


def check_new_or_ours(path: str | Path, option: str, is_ours: Callable[[Path], bool], ours: str) -> Path:
    """Return `path` if it is missing or a regular file that `is_ours` recognises; else raise OutputFileError.

    `ours` says, for the message, how a file of ours is recognised.
    """
    path = Path(path)
    try:
        mode = path.lstat().st_mode
    except FileNotFoundError:
        return path
    if stat.S_ISREG(mode) and is_ours(path):
        return path
    kind = "is not a regular file" if not stat.S_ISREG(mode) else f"was not written by this command ({ours})"
    raise OutputFileError(
        f"{option} {path}: refusing to overwrite it: it exists and {kind}. "
        "Choose a new path, or move the file away yourself"
    )


def starts_with(path: Path, prefix: bytes) -> bool:
    """Whether the file at `path` begins with `prefix` (False if it cannot be read or is no regular file)."""
    try:
        return read_head(path, HEAD, len(prefix)) == prefix
    except (OSError, UnreadableFile):
        return False
