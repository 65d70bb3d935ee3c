"""The identity of the code that made a stored result: a hash of this package's own files, not its version string.

A version string stays "0.1.0" across many commits and through every edit of an editable install, so a cache keyed
by it serves figures of older code. `code_identity()` hashes the name and bytes of every source and data file of
the installed package (`*.py` and the package data the code reads: prompts, settings, templates, shipped JSON),
walked once per process from the folders its packages are imported from: any change to the code, a judge prompt
or a paper setting gives another identity, whether the package is a wheel or an editable checkout. Compiled
bytecode, caches and anything outside those folders are not part of it.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
from pathlib import Path

# The top-level folders of the distribution (pyproject's package-dir): each is walked whole.
PACKAGES = (
    "longform_eval.common",
    "longform_eval.registry",
    "longform_eval.dataset_builder",
    "longform_eval.metric",
    "longform_eval.inference",
    "longform_eval.spaces",
    "longform_eval.cards",
)
SUFFIXES = (".py", ".md", ".j2", ".yaml", ".json", ".txt")
SKIPPED_FOLDERS = {"__pycache__"}


def package_files(package: str) -> list[tuple[str, Path]]:
    """(name relative to the package, path) of every source and data file below the package's folders, sorted."""
    spec = importlib.util.find_spec(package)  # the folders, without running the package's __init__
    found = []
    for root in map(Path, spec.submodule_search_locations or ()) if spec else ():
        for folder, folders, names in os.walk(root):
            folders[:] = sorted(name for name in folders if name not in SKIPPED_FOLDERS and not name.startswith("."))
            for name in names:
                if name.endswith(SUFFIXES):
                    path = Path(folder, name)
                    found.append((f"{package}/{path.relative_to(root).as_posix()}", path))
    return sorted(found)


@functools.cache
def code_identity() -> str:
    """SHA-256 over the name and bytes of every file of `package_files` for each of PACKAGES (64 hex digits)."""
    digest = hashlib.sha256(b"longform-eval code\0")
    for package in PACKAGES:
        for name, path in package_files(package):
            digest.update(name.encode("utf-8") + b"\0")
            digest.update(path.read_bytes())
            digest.update(b"\0end\0")
    return digest.hexdigest()


__all__ = ["code_identity"]
