"""What checking a run folder found, kept in the user's cache by the hash of the files it read (`result_cache`).

`report`, `leaderboard` and `compare` check every record of every run they read before they trust it, and count the
calls it still owes; for 30 runs of 647 rows that is most of their time. A folder's check rests only on its
config.yaml, its rows file, its logs (failures.jsonl included) and, for a pairwise run against another run folder,
that folder's files (`runner.inputs.records_hash`, which also holds the code's identity): what a check found is kept
under the hash of their bytes, and a later reader whose hash is the same takes it instead of checking again. A
changed, added or removed file is another hash: the folder is checked again.

The entry lives in the user's cache, never in the run folder: a run folder may come from someone else, and anyone
can compute the hash of its files, so an entry kept beside them could say that calls are made that are not.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from longform_eval.common.guarded import LOG
from longform_eval.common.hashing import files_hash

from ..runner.inputs import records_hash
from ..runner.pending import PendingCalls
from .result_cache import store, stored

KIND = "checked-folder@2"
FAILURE_LOGS = "failures*.jsonl"


def folder_hash(folder: Path, baseline: Path | None = None, records: str | None = None) -> str:
    """SHA-256 over what the folder's scores come from (`records`, else `records_hash(folder, baseline)`) and the name
    and bytes of its failure logs (a symlink not followed; `hashing.files_hash`)."""
    records = records_hash(folder, baseline) if records is None else records
    failures = [folder / name for name in sorted({path.name for path in folder.glob(FAILURE_LOGS)})]
    return files_hash(f"checked\0{records}", failures, LOG, follow_symlinks=False)


def remembered_check(folder: Path, key: str) -> PendingCalls | None:
    """The calls the folder owed when a folder with these files was last checked, or None (check it)."""
    found = stored(KIND, [key])
    try:
        fields: dict[str, Any] = found["value"] if found is not None else {}
        failed = Counter({str(k): int(v) for k, v in fields["failed"].items()})
        return PendingCalls(
            folder, folder / "failures.jsonl", int(fields["generations"]), int(fields["judge_calls"]), failed
        )
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


def remember_check(key: str, pending: PendingCalls) -> None:
    """Keep what the check found (a cache: where it cannot be written, the folder is checked again next time)."""
    store(
        KIND,
        [key],
        {"generations": pending.generations, "judge_calls": pending.judge_calls, "failed": dict(pending.failed)},
    )
