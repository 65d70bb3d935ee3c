"""What a run's scores are computed from, as one hash: scores.json keeps it (`inputs`), and a reader compares it with
the folder as it is now before it believes the figures.

The scores of a run are a function of its config.yaml, its rows file (the rows, their checklists and weights), its
generation and judgement logs (shards included), the answers of a baseline run folder it is compared with (its
config.yaml, rows file and generation logs), and the
code that scores them: a changed verdict, generation, weight, setting or line of code is another hash. Without a rows
file the rows come from the benchmark source, so its setting is hashed too. failures.jsonl is no input: a failed call
adds no record.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from longform_eval.common.code_identity import code_identity
from longform_eval.common.guarded import LOG
from longform_eval.common.hashing import files_hash
from longform_eval.dataset_builder.sources import SOURCE_ENV

from .folder import CONFIG_FILE, GENERATION_LOGS, JUDGEMENT_LOGS
from .rows_file import ROWS_FILE

SCORED_LOGS = (GENERATION_LOGS, JUDGEMENT_LOGS)
REFERENCE = "reference"  # a pairwise baseline that is no run folder: the dataset's reference answers


def records_hash(folder: Path, baseline: Path | None = None) -> str:
    """SHA-256 over the code's identity and the name and bytes of the files the folder's scores come from (and of
    those `baseline`'s answers come from: a run folder the run compares with); a symlink is not followed
    (`hashing.files_hash`)."""
    header = f"scored from\0{code_identity()}\0{source_setting(folder)}"
    digest = files_hash(header, scored_files(folder), LOG, follow_symlinks=False)
    if baseline is None:
        return digest
    header = f"{digest}\0baseline\0{source_setting(baseline)}"
    return files_hash(header, scored_files(baseline, (GENERATION_LOGS,)), LOG, follow_symlinks=False)


def scored_files(folder: Path, logs: tuple[str, ...] = SCORED_LOGS) -> list[Path]:
    """config.yaml, the rows file and every log of the folder matching `logs` (default: its generation and judgement
    logs), in a fixed order."""
    names = sorted({path.name for pattern in logs for path in folder.glob(pattern)})
    return [folder / name for name in (CONFIG_FILE, ROWS_FILE, *names)]


def source_setting(folder: Path) -> str:
    """The benchmark source setting where the folder's rows come from it (no rows file), else nothing."""
    return "" if (folder / ROWS_FILE).is_file() else os.environ.get(SOURCE_ENV, "")


def baseline_folder(benchmark_args: dict[str, Any]) -> Path | None:
    """The run folder a pairwise run compares its answers with (`--baseline FOLDER`), None for any other run."""
    baseline = benchmark_args.get("baseline")
    return None if baseline in (None, REFERENCE) else Path(str(baseline))
