"""What a file's content gives (its document parsed and checked), computed once per process for the same bytes.

A command reads the same small file several times (a run's config.yaml and scores.json: by the folder check, the
report, the comparisons, the leaderboard). Each read still reads the file; the parse is skipped where the bytes are
those parsed before (keyed by the content itself, so an edit is always seen). What is kept is never changed by a
caller: an immutable model, or a copy handed out (`copy_out`).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar

Value = TypeVar("Value")
KEPT_MOST = 256  # documents kept of one kind; the least recently used is dropped first (a Space reads many runs)

_KEPT: dict[str, OrderedDict[bytes | str, Any]] = {}


def parsed_once(
    kind: str,
    data: bytes | str,
    parse: Callable[[], Value],
    copy_out: Callable[[Value], Value] | None = None,
    most: int = KEPT_MOST,
) -> Value:
    """`parse()` (what `data`, the file's content as just read or its digest, gives), or what it gave before for
    the same `kind` and `data`; at most `most` of a kind kept. An error of `parse` is raised each time (none kept)."""
    kept = _KEPT.setdefault(kind, OrderedDict())
    if data in kept:
        kept.move_to_end(data)
        value = kept[data]
    else:
        value = parse()
        kept[data] = value
        while len(kept) > most:
            kept.popitem(last=False)
    return copy_out(value) if copy_out is not None else value


def forget_parsed() -> None:
    """Nothing kept."""
    _KEPT.clear()
