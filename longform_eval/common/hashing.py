"""Short content hashes, stable across processes and versions (record keys, run-folder checks)."""

from __future__ import annotations

import hashlib


def text_hash(text: str) -> str:
    """The first 16 hex digits of the text's SHA-256."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
