"""One writer per run folder: an advisory `flock` on `<folder>/.lock`, released by the OS when the holder dies.

A process takes a folder's lock once and keeps it until `unlock_run_folder` (the CLI unlocks every folder when a
command ends, with or without an error, and removes the file) or until it exits. Under `accelerate launch` the
processes of one launch share the folder: rank 0 takes `.lock` (as a single process does), the other ranks take
`.lock.rank<N>`, so a second launch or a second plain run is refused.

The holder removes the file while it still holds the lock; a process that locked a file just removed (it opened it
a moment before) sees that the path no longer names what it locked, and tries again on the new file.

The lock file is written and removed, so it must be this folder's own: a `.lock` that is a symlink, has other hard
links or is not a regular file is refused (never followed, truncated or removed), and `release` removes the path
only while it still names the file this process holds.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import stat
import time
from pathlib import Path

from longform_eval.common.errors import LongformEvalError

OPEN_FLAGS = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
REMOVE_HINT = "remove it if no longform-eval process is running"


class RunFolderLocked(LongformEvalError, RuntimeError):
    """Another process is writing to this run folder."""


class UnsafeLockFile(LongformEvalError, RuntimeError):
    """The folder's lock file is not a plain file of its own (a symlink, a hard link, a folder, ...)."""


_HELD: dict[Path, int] = {}


def lock_file_path(folder: Path, rank: int = 0) -> Path:
    """The lock file of `folder` (only the folder is resolved: the file's own name is never followed)."""
    return folder.resolve() / (".lock" if rank == 0 else f".lock.rank{rank}")


def lock_run_folder(folder: Path, rank: int = 0) -> Path:
    """Take the folder's lock for this process (once; later calls in the same process are no-ops)."""
    path = lock_file_path(folder, rank)
    if path in _HELD:
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = locked_file(path)
    try:
        os.ftruncate(fd, 0)
        os.write(fd, json.dumps({"pid": os.getpid(), "since": time.strftime("%Y-%m-%dT%H:%M:%S")}).encode())
    except OSError as error:  # e.g. a full disk: leave no lock file behind
        release(path, fd)
        raise OSError(error.errno, error.strerror or str(error), str(path)) from error
    _HELD[path] = fd
    return path


def locked_file(path: Path) -> int:
    """An open descriptor of `path`, locked by this process; RunFolderLocked if another process holds it."""
    while True:
        fd = open_own_file(path)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 512).decode("utf-8", "replace").strip() or "unknown"
            os.close(fd)
            raise RunFolderLocked(
                f"{path.parent}: another longform-eval process is writing to this run folder ({holder}); "
                "wait for it to finish or use another --out"
            ) from None
        if names_descriptor(path, fd):
            return fd
        os.close(fd)  # its holder removed it between our open and our lock


def open_own_file(path: Path) -> int:
    """`path` opened (created if missing) without following a symlink; UnsafeLockFile unless it is a regular file
    with no other hard link (one that its holder has just removed, with no link left, is fine: it is retried)."""
    try:
        fd = os.open(path, OPEN_FLAGS, 0o644)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise UnsafeLockFile(f"{path} is a symlink; {REMOVE_HINT}") from None
        if error.errno == errno.EISDIR:
            raise UnsafeLockFile(f"{path} is a folder, not a lock file; {REMOVE_HINT}") from None
        raise
    problem = not_own_file(os.fstat(fd))
    if problem:
        os.close(fd)
        raise UnsafeLockFile(f"{path} {problem}; {REMOVE_HINT}")
    return fd


def not_own_file(found: os.stat_result) -> str | None:
    if not stat.S_ISREG(found.st_mode):
        return "is not a regular file"
    return "has other hard links" if found.st_nlink > 1 else None


def names_descriptor(path: Path, fd: int) -> bool:
    """Whether `path` itself (not what a symlink there points to) is the file open as `fd`."""
    try:
        on_disk = os.lstat(path)
    except FileNotFoundError:
        return False
    held = os.fstat(fd)
    return (on_disk.st_dev, on_disk.st_ino) == (held.st_dev, held.st_ino)


def release(path: Path, fd: int) -> None:
    """Remove the lock file (while still holding it, and only if the path still names it), then unlock."""
    if names_descriptor(path, fd):
        path.unlink(missing_ok=True)
    fcntl.flock(fd, fcntl.LOCK_UN)
    os.close(fd)


def unlock_run_folder(path: Path) -> None:
    fd = _HELD.pop(path, None)
    if fd is not None:
        release(path, fd)


def unlock_all_run_folders() -> None:
    """Release every lock this process holds (a command has ended)."""
    for path in list(_HELD):
        unlock_run_folder(path)
