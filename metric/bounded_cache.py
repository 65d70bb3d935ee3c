"""Caches kept between calls, bounded: once full, the newer half is kept."""

from __future__ import annotations

import itertools

CACHE_LIMIT = 1 << 17  # entries of each cache kept between calls


def bounded(cache: dict, limit: int = CACHE_LIMIT) -> dict:
    """The cache, or once it holds `limit` entries a new one of the same type with its newer half.

    A new object rather than deletions, so that a call still reading the old one (another thread) finds its keys.
    """
    if len(cache) < limit:
        return cache
    newer = type(cache)()
    newer.update(itertools.islice(cache.items(), len(cache) // 2, None))
    return newer
