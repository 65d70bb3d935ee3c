"""Values derived from a run's texts (a response's word count), cached by content hash in the run folder.

Scoring a finished run again must not tokenize every response again: each value is stored under its kind and the
hash of the text it was computed from, so a changed response is simply another key (the old entry is dropped when
the cache is next written). The file is a cache: a missing, damaged or oversized one is recomputed, never an error,
and only a command that writes the run folder writes it (whole: temporary file + `os.replace`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from longform_eval.common.atomic import write_text_atomic
from longform_eval.common.guarded import DERIVED, read_cache_json
from longform_eval.common.hashing import text_hash

DERIVED_FILE = "derived.json"
FORMAT = 1


class DerivedValues:
    """`get(kind, text, compute)`: the cached value of `compute(text)`; `save()` writes what was used."""

    def __init__(self, folder: Path):
        self.path = Path(folder) / DERIVED_FILE
        self.stored: dict[str, dict[str, Any]] | None = None
        self.used: dict[str, dict[str, Any]] = {}
        self.computed = 0

    def load(self) -> dict[str, dict[str, Any]]:
        if self.stored is None:
            self.stored = read_derived(self.path)
        return self.stored

    def get(self, kind: str, text: str, compute: Callable[[str], Any]) -> Any:
        value = self.known(kind, text)
        if value is None:
            value = compute(text)
            self.computed += 1
        self.used.setdefault(kind, {})[text_hash(text)] = value
        return value

    def known(self, kind: str, text: str) -> Any:
        """The value kept for `text`, None where there is none (nothing computed)."""
        return self.load().get(kind, {}).get(text_hash(text))

    def put(self, kind: str, text: str, value: int | float | str) -> None:
        self.used.setdefault(kind, {})[text_hash(text)] = value
        self.computed += 1

    def save(self) -> None:
        """Write the values used since loading, if any changed: of each kind used, the entries of texts no longer in
        the run are dropped; a kind not used is kept as it was."""
        stored = self.load()
        if self.computed == 0 and self.used == {k: v for k, v in stored.items() if k in self.used}:
            return
        document = {"format": FORMAT, "values": stored | self.used}
        write_text_atomic(self.path, json.dumps(document, sort_keys=True, separators=(",", ":")) + "\n")
        self.stored, self.computed = document["values"], 0


def read_derived(path: Path) -> dict[str, dict[str, Any]]:
    """The cached values by kind and text hash; empty for a missing, oversized or damaged cache (`read_cache_json`)."""
    document = read_cache_json(path, DERIVED)
    values = document.get("values") if isinstance(document, dict) and document.get("format") == FORMAT else None
    if not isinstance(values, dict):
        return {}
    return {
        kind: {k: v for k, v in entries.items() if isinstance(v, (int, float, str)) and not isinstance(v, bool)}
        for kind, entries in values.items()
        if isinstance(entries, dict)
    }
