"""A plot is drawn again only when what it shows changed: each drawing's inputs are hashed, and the hash kept beside
it (`.plots.json` in its folder) with the SHA-256 of the file drawn. `report` of a finished run whose figures did not
change (a rerun that made no call writes new stage times, not new figures) draws nothing and does not even import
matplotlib. The file's own hash also tells which PNGs of a folder this toolkit drew (`drawn_plots`): `push-run`
uploads those and no other picture."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from longform_eval.common.atomic import write_text_atomic
from longform_eval.common.code_identity import code_identity
from longform_eval.common.guarded import MARKER, PLOT, read_cache, read_cache_json

HASHES = ".plots.json"


def drawn_once(draw: Callable[..., Any]) -> Callable[..., Any]:
    """`draw(path, ...)`, unless `path` is there, unchanged since it was drawn from the same arguments by this
    package version."""

    @functools.wraps(draw)
    def draw_if_changed(path: Path, *args: Any, **kwargs: Any) -> Any:
        inputs = repr((draw.__name__, code_identity(), args, sorted(kwargs.items())))
        digest = hashlib.sha256(inputs.encode("utf-8")).hexdigest()
        recorded = drawn_hashes(path.parent).get(path.name)
        if recorded and recorded["inputs"] == digest and recorded["sha256"] == file_sha256(path):
            return path
        plot = draw(path, *args, **kwargs)
        if isinstance(plot, Path):
            with contextlib.suppress(OSError):  # the hash is a cache: without it the plot is drawn next time
                entry = {"inputs": digest, "sha256": file_sha256(path)}
                hashes = drawn_hashes(path.parent) | {path.name: entry}
                write_text_atomic(path.parent / HASHES, json.dumps(hashes, sort_keys=True) + "\n")
        return plot

    return draw_if_changed


def file_sha256(path: Path) -> str | None:
    """The SHA-256 of the regular file at `path` (no link followed, at most a plot's ceiling); None otherwise."""
    data = read_cache(path, PLOT)
    return None if data is None else hashlib.sha256(data).hexdigest()


def drawn_hashes(folder: Path) -> dict[str, dict[str, str]]:
    """name -> {"inputs": hash of what it shows, "sha256": hash of the file drawn}, as `.plots.json` records them."""
    found = read_cache_json(folder / HASHES, MARKER)
    if not isinstance(found, dict):
        return {}
    return {
        name: entry
        for name, entry in found.items()
        if isinstance(entry, dict) and all(isinstance(entry.get(key), str) for key in ("inputs", "sha256"))
    }


def drawn_plots(folder: Path) -> set[str]:
    """The names of the PNGs in `folder` that this toolkit drew and nobody changed since (their recorded hash)."""
    return {name for name, entry in drawn_hashes(folder).items() if entry["sha256"] == file_sha256(folder / name)}
