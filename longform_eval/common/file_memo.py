"""What a file's content gives (its document parsed and checked), computed once per process for the same bytes.

A command reads the same small file several times (a run's config.yaml and scores.json: by the folder check, the
report, the comparisons, the leaderboard). Each read still reads the file; the parse is skipped where the bytes are
those parsed before (keyed by the content itself, so an edit is always seen). What is kept is never changed by a
caller: an immutable model, or a copy handed out (`copy_out`).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar

Value = TypeVar("Value")
KEPT_MOST = 256  # documents kept of one kind; the least recently used is dropped first (a Space reads many runs)

_KEPT: dict[str, OrderedDict[bytes | str, Any]] = {}
_LOCK = threading.Lock()  # the Space reads from several threads


def parsed_once(
    kind: str,
    data: bytes | str,
    parse: Callable[[], Value],
    copy_out: Callable[[Value], Value] | None = None,
    most: int = KEPT_MOST,
) -> Value:
    """`parse()` (what `data`, the file's content as just read or its digest, gives), or what it gave before for
    the same `kind` and `data`; at most `most` of a kind kept. An error of `parse` is raised each time (none kept)."""
    with _LOCK:
        kept = _KEPT.setdefault(kind, OrderedDict())
        found = kept.pop(data, _MISSING)
        if found is not _MISSING:
            kept[data] = found  # the most recently used now
    if found is _MISSING:
        found = parse()  # outside the lock: two threads may parse the same file once each
        with _LOCK:
            kept[data] = found
            while len(kept) > most:
                kept.popitem(last=False)
    return copy_out(found) if copy_out is not None else found


_MISSING = object()


def forget_parsed() -> None:
    """Nothing kept."""
    with _LOCK:
        _KEPT.clear()
