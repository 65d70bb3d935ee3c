"""A plot is drawn again only when what it shows changed: each drawing's inputs are hashed, and the hash kept beside
it (`.plots.json` in its folder). `report` of a finished run whose figures did not change (a rerun that made no call
writes new stage times, not new figures) draws nothing and does not even import matplotlib."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from longform_eval.common.atomic import write_text_atomic
from longform_eval.common.guarded import MARKER, read_cache_json
from longform_eval.dataset_builder.folder import package_version

HASHES = ".plots.json"


def drawn_once(draw: Callable[..., Any]) -> Callable[..., Any]:
    """`draw(path, ...)`, unless `path` is there and was drawn from the same arguments by this package version."""

    @functools.wraps(draw)
    def draw_if_changed(path: Path, *args: Any, **kwargs: Any) -> Any:
        inputs = repr((draw.__name__, package_version(), args, sorted(kwargs.items())))
        digest = hashlib.sha256(inputs.encode("utf-8")).hexdigest()
        if path.is_file() and drawn_hashes(path.parent).get(path.name) == digest:
            return path
        plot = draw(path, *args, **kwargs)
        if isinstance(plot, Path):
            with contextlib.suppress(OSError):  # the hash is a cache: without it the plot is drawn next time
                hashes = drawn_hashes(path.parent) | {path.name: digest}
                write_text_atomic(path.parent / HASHES, json.dumps(hashes, sort_keys=True) + "\n")
        return plot

    return draw_if_changed


def drawn_hashes(folder: Path) -> dict[str, str]:
    found = read_cache_json(folder / HASHES, MARKER)
    return {k: v for k, v in found.items() if isinstance(v, str)} if isinstance(found, dict) else {}
