"""Short content hashes, stable across processes and versions (record keys, run-folder checks), and hashes of
files, read through the guarded reader (a FIFO, a device or a file past its ceiling is never read, only marked)."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from pathlib import Path

from .guarded import Kind, UnreadableFile, open_regular

CHUNK = 1024 * 1024


def text_hash(text: str) -> str:
    """The first 16 hex digits of the text's SHA-256."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def files_hash(header: str, paths: Iterable[Path], kind: Kind, follow_symlinks: bool = True) -> str:
    """SHA-256 over `header`, then each file's name and bytes, streamed (see `update_with_file`)."""
    digest = hashlib.sha256(f"{header}\0".encode())
    for path in paths:
        digest.update(f"{path.name}\0".encode())
        update_with_file(digest, path, kind, follow_symlinks)
        digest.update(b"\0end\0")
    return digest.hexdigest()


def update_with_file(digest: hashlib._Hash, path: Path, kind: Kind, follow_symlinks: bool = True) -> None:
    """Feed `digest` the file's bytes in chunks, or a mark of what stands there instead: nothing, a symlink not
    followed (with its target), or a file the guarded reader refuses (the command that reads it names it)."""
    try:
        with open_regular(path, kind, follow_symlinks) as handle:
            read = 0
            while data := handle.read(CHUNK):
                read += len(data)
                if read > kind.ceiling:  # it grew past the ceiling while it was read
                    raise UnreadableFile(path, "grew past its ceiling")
                digest.update(data)
    except FileNotFoundError:
        digest.update(b"\0absent\0")
    except UnreadableFile:
        link = os.readlink(path) if os.path.islink(path) else ""
        digest.update(f"\0not read\0{link}\0".encode(errors="surrogateescape"))
