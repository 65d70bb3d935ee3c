"""A failed model or judge call: logged in failures.jsonl, counted, shown, and left pending for the next run."""

from __future__ import annotations

import time
from collections import Counter

from ..backends.base import Result
from ..progress import console
from ..secret_values import scrub
from .records import RecordLog


def log_failure(log: RecordLog, failed: Counter[str], stage: str, result: Result, sample_id: str, backend: str) -> None:
    """Append the failure to `log`, count it in `failed` by "stage: error", and say it in red (secrets scrubbed)."""
    error, backend = scrub(result.error or ""), scrub(backend)
    failed[f"{stage}: {error}"[:160]] += 1
    log.append(
        {
            "stage": stage,
            "key": result.key,
            "sample_id": sample_id,
            "backend": backend,
            "error": error,
            "attempts": result.attempts,
            "time": time.strftime("%Y-%m-%dT%H:%M:%S"),
        }
    )
    console.print(
        f"{stage} call {result.key} (sample {sample_id}) to {backend} failed: {error}", style="red", markup=False
    )
