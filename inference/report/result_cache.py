"""Results computed from runs, cached by the content they were computed from: the toolkit's one store of results.

A paired comparison of two runs (2,000 seeded resamples per figure, a power figure) depends only on the two runs'
scores.json, the method and the identity of this package's code: a leaderboard of 30 runs asks for 435 of them, and
asking again (a `report` after a `leaderboard`, a 31st run added) recomputes only what is new. Entries live in
`$LONGFORM_EVAL_CACHE/results` (default `~/.cache/longform_eval/results`), one JSON file per key, written whole; a
missing, damaged or oversized entry is computed again, never an error. Runs scored with several judge samples rest on
their records, not on scores.json alone, and are not cached. The same store keeps what checking a run folder found
(`folder_check`) and a run's scores computed from its records (`scores_check`), each under the hash of the files it
was computed from: never in the run folder, which may come from someone else."""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from longform_eval.common.atomic import write_text_atomic
from longform_eval.common.code_identity import code_identity
from longform_eval.common.guarded import RESULTS, read_cache_json

from ..benchmarks.rows import cache_root
from ..benchmarks.run_scores import RunScores


def scores_digest(scores: RunScores) -> str | None:
    """The hash of a run's scores.json content; None where its figures rest on more than scores.json (judge samples)."""
    if scores.judge_samples > 1:
        return None
    text = json.dumps(scores.document(), sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def cached(kind: str, parts: list[Any] | None, compute: Callable[[], Any]) -> Any:
    """`compute()`, or the value stored for (`kind`, `parts`, the identity of this package's code); None `parts`:
    not cacheable."""
    if parts is None:
        return compute()
    found = stored(kind, parts)
    if found is not None:
        return found["value"]
    value = compute()
    store(kind, parts, value)
    return value


def entry_path(kind: str, parts: list[Any]) -> Path:
    identity = json.dumps([kind, code_identity(), *parts], sort_keys=True, ensure_ascii=False)
    return cache_root() / "results" / kind / f"{hashlib.sha256(identity.encode('utf-8')).hexdigest()}.json"


def stored(kind: str, parts: list[Any]) -> dict[str, Any] | None:
    """{"value": the value kept for the key}, or None where none is (missing, damaged or oversized)."""
    return read_entry(entry_path(kind, parts))


def store(kind: str, parts: list[Any], value: Any) -> None:
    """Keep `value` for the key (a cache: a read-only cache, or a value JSON cannot hold, is not kept)."""
    with contextlib.suppress(OSError, ValueError):
        write_text_atomic(
            entry_path(kind, parts),
            json.dumps({"value": value}, ensure_ascii=False, allow_nan=False) + "\n",
            durable=False,  # a cache: an entry a crash lost is computed again
        )


def read_entry(path: Path) -> dict[str, Any] | None:
    document = read_cache_json(path, RESULTS)
    return document if isinstance(document, dict) and "value" in document else None
