"""One writer per run folder: an advisory `flock` on `<folder>/.lock`, released by the OS when the holder dies.

A process takes a folder's lock once and keeps it until it exits (or `unlock_run_folder`). Under
`accelerate launch` the processes of one launch share the folder: rank 0 takes `.lock` (as a single process
does), the other ranks take `.lock.rank<N>`, so a second launch or a second plain run is refused.
"""

from __future__ import annotations

import fcntl
import json
import os
import time
from pathlib import Path


class RunFolderLocked(RuntimeError):
    """Another process is writing to this run folder."""


_HELD: dict[Path, int] = {}


def lock_run_folder(folder: Path, rank: int = 0) -> Path:
    """Take the folder's lock for this process (once; later calls in the same process are no-ops)."""
    path = (folder / (".lock" if rank == 0 else f".lock.rank{rank}")).resolve()
    if path in _HELD:
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.read(fd, 512).decode("utf-8", "replace").strip() or "unknown"
        os.close(fd)
        raise RunFolderLocked(
            f"{path.parent}: another longform-eval process is writing to this run folder ({holder}); "
            "wait for it to finish or use another --out"
        ) from None
    os.ftruncate(fd, 0)
    os.write(fd, json.dumps({"pid": os.getpid(), "since": time.strftime("%Y-%m-%dT%H:%M:%S")}).encode())
    _HELD[path] = fd
    return path


def unlock_run_folder(path: Path) -> None:
    fd = _HELD.pop(path, None)
    if fd is not None:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
