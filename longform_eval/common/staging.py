"""Staging folders named after their target and the process that writes them; those of dead processes are removed.

A folder is written as `.<name>.tmp-<pid>-<random>` beside its target `<name>` and renamed into place when
complete; the folder it replaces is first renamed `.<name>.old-<pid>-<random>`, then emptied. A process killed
meanwhile leaves them behind. The next writer of the same target removes the ones whose process is gone, and only
if they hold nothing but the files their marker lists (see `owned`); those of a live process are left alone.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path

from .owned import listed_files, remove_listed


@contextlib.contextmanager
def writing_lock(target: Path) -> Iterator[None]:
    """Hold the lock of `target`'s writers (`.<name>.lock` beside it) for the block: a second writer waits, so two
    writers of one folder never mix their files. The lock file is left for the next writer (an empty file)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target.with_name(f".{target.name}.lock"), "a+b") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock.fileno(), fcntl.LOCK_UN)


def staging_folder(target: Path) -> Path:
    """A new, empty, private staging folder beside `target`, named after it and this process."""
    return Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}.tmp-{os.getpid()}-"))


def retired_path(target: Path, staging: Path) -> Path:
    """Where `target` goes while `staging` takes its place."""
    return target.with_name(f".{target.name}.old-{os.getpid()}-{staging.name.rsplit('-', 1)[-1]}")


def leftover_pattern(target: Path) -> re.Pattern[str]:
    """The names `staging_folder` and `retired_path` give for `target`, the owning process id in group 1."""
    return re.compile(rf"\.{re.escape(target.name)}\.(?:tmp|old)-([0-9]{{1,10}})-[a-z0-9_]+")


def process_alive(pid: int) -> bool:
    """Whether process `pid` exists (on this machine); True when that cannot be told, so nothing is removed."""
    if pid <= 0:
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def remove_dead_staging(target: Path, marker: str) -> list[Path]:
    """Remove the staging and retired folders of `target` left by dead processes; the ones removed."""
    pattern = leftover_pattern(target)
    try:
        entries = sorted(target.parent.iterdir())
    except OSError:
        return []
    removed = []
    for entry in entries:
        match = pattern.fullmatch(entry.name)
        if not match or entry.is_symlink() or not entry.is_dir() or process_alive(int(match.group(1))):
            continue
        try:
            files = listed_files(entry, marker)
            if files is not None and remove_listed(entry, files):
                removed.append(entry)
        except OSError:
            continue
    return removed
