"""Values derived from a run's texts (a response's word count), cached by content hash in the user's cache.

Scoring a finished run again must not tokenize every response again: each value is stored under its kind (which names
the rule: a new rule is a new kind) and the hash of the text it was computed from, so a changed response is simply
another key, and a run copied or moved finds what was computed for its texts before. The store lives in
`$LONGFORM_EVAL_CACHE/derived` (default `~/.cache/longform_eval/derived`), one file per kind, never in a run folder:
a run folder may come from someone else, and a value its files held would be believed over its records (a
`derived.json` left in a folder by an earlier version is not read). A missing, damaged or oversized file is
recomputed, never an error; a file is written whole (temporary file + `os.replace`), merged with what another process
added meanwhile.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from longform_eval.common.atomic import write_text_atomic
from longform_eval.common.guarded import DERIVED, read_cache_json
from longform_eval.common.hashing import text_hash

from ..benchmarks.rows import cache_root

FORMAT = 2
Value = int | float | str


class DerivedValues:
    """`get(kind, text, compute)`: the cached value of `compute(text)`; `save()` keeps what was computed."""

    def __init__(self, folder: Path | None = None):
        self.folder = folder  # the run whose texts these are (values are shared by every run: keyed by content)
        self.stored: dict[str, dict[str, Value]] = {}
        self.added: dict[str, dict[str, Value]] = {}

    @property
    def computed(self) -> int:
        return sum(map(len, self.added.values()))

    def load(self, kind: str) -> dict[str, Value]:
        if kind not in self.stored:
            self.stored[kind] = read_derived(store_path(kind), kind)
        return self.stored[kind]

    def get(self, kind: str, text: str, compute: Callable[[str], Any]) -> Any:
        value = self.known(kind, text)
        if value is None:
            value = compute(text)
            self.put(kind, text, value)
        return value

    def known(self, kind: str, text: str) -> Any:
        """The value kept for `text`, None where there is none (nothing computed)."""
        key = text_hash(text)
        return self.added.get(kind, {}).get(key, self.load(kind).get(key))

    def put(self, kind: str, text: str, value: Value) -> None:
        self.added.setdefault(kind, {})[text_hash(text)] = value

    def save(self) -> None:
        """Write each kind that got new values, with what its file holds now (a cache: an unwritable one is skipped)."""
        for kind, added in self.added.items():
            values = read_derived(store_path(kind), kind) | added
            document = {"format": FORMAT, "kind": kind, "values": values}
            with contextlib.suppress(OSError):
                text = json.dumps(document, sort_keys=True, separators=(",", ":")) + "\n"
                write_text_atomic(store_path(kind), text, durable=False)  # a cache: lost, it is computed again
            self.stored[kind] = values
        self.added = {}


def store_path(kind: str) -> Path:
    """The file of one kind of value in the user's cache (named by the kind's hash: any text may name a kind)."""
    return cache_root() / "derived" / f"{hashlib.sha256(kind.encode('utf-8')).hexdigest()[:32]}.json"


def read_derived(path: Path, kind: str) -> dict[str, Value]:
    """The cached values of `kind` by text hash; empty for a missing, oversized or damaged file (`read_cache_json`)."""
    document = read_cache_json(path, DERIVED)
    fits = isinstance(document, dict) and document.get("format") == FORMAT and document.get("kind") == kind
    values = document.get("values") if fits else None
    if not isinstance(values, dict):
        return {}
    return {k: v for k, v in values.items() if isinstance(v, (int, float, str)) and not isinstance(v, bool)}
