"""What checking a run folder found, kept by the hash of the files it read (`derived.json`, kind `checked-folder`).

`report`, `leaderboard` and `compare` check every record of every run they read before they trust it, and count the
calls it still owes; for 30 runs of 647 rows that is most of their time. A folder's check rests only on its
config.yaml, its rows file and its logs (and, without a rows file, the benchmark source): `report` keeps what it found
under the hash of their bytes, and a later reader whose hash is the same takes it instead of checking again. A changed,
added or removed file is another hash: the folder is checked again.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

from longform_eval.common.bounded_json import loads_json
from longform_eval.common.code_identity import code_identity
from longform_eval.common.guarded import LOG
from longform_eval.common.hashing import files_hash
from longform_eval.dataset_builder.sources import SOURCE_ENV

from ..runner.derived import DerivedValues
from ..runner.folder import CONFIG_FILE, RUN_LOGS
from ..runner.pending import PendingCalls
from ..runner.rows_file import ROWS_FILE

KIND = "checked-folder@1"


def folder_hash(folder: Path) -> str:
    """SHA-256 over the code's identity (`code_identity`), the benchmark source setting, and the name and bytes of
    config.yaml, the rows file and every log of the folder (a symlink not followed: its target is hashed;
    `hashing.files_hash`)."""
    header = f"{code_identity()}\0{os.environ.get(SOURCE_ENV, '')}"
    names = [CONFIG_FILE, ROWS_FILE, *sorted({p.name for pattern in RUN_LOGS for p in folder.glob(pattern)})]
    return files_hash(header, [folder / name for name in names], LOG, follow_symlinks=False)


def remembered_check(folder: Path, key: str) -> PendingCalls | None:
    """The calls the folder owed when it was last checked with these files, or None (check it)."""
    found = DerivedValues(folder).known(KIND, key)
    try:
        fields: dict[str, Any] = loads_json(found) if isinstance(found, str) else {}
        failed = Counter({str(k): int(v) for k, v in fields["failed"].items()})
        return PendingCalls(
            folder, folder / "failures.jsonl", int(fields["generations"]), int(fields["judge_calls"]), failed
        )
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


def remember_check(folder: Path, key: str, pending: PendingCalls) -> None:
    """Keep what the check found (a cache: a folder that cannot be written is checked again next time)."""
    fields = {"generations": pending.generations, "judge_calls": pending.judge_calls, "failed": dict(pending.failed)}
    derived = DerivedValues(folder)
    derived.put(KIND, key, json.dumps(fields, sort_keys=True))
    with contextlib.suppress(OSError):
        derived.save()
