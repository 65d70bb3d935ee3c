"""A run's scores.json, checked to be as `longform-eval score` writes it before anything is made from it.

Read as a `benchmarks.run_scores.RunScores`, built by `run_scores` as `runner.scoring.write_scores` builds it before
writing the file: the fields every scores.json has (the run's identity and counts, its uncertainty fields and each
judge sample's units), and the figures of its benchmark (`Benchmark.scores_layout`). A file that fails is one line
naming it and the field: `report` writes nothing from a damaged scores.json.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from longform_eval.common.file_memo import parsed_once
from longform_eval.common.guarded import DOCUMENT, file_state, read_bytes

from ..benchmarks.run_scores import RunScores, ScoresInvalid
from ..benchmarks.scores_json import run_scores
from .json_file import DamagedFile, json_document

SCORES_FILE = "scores.json"
SCORES_KEPT = 64  # checked scores files kept in a process (a few MB each with their rows)


def rescore(folder: Path) -> str:
    return f"run `longform-eval score {folder}` again"


# Scores recomputed from a folder's records where its scores.json is not theirs and the reader may not rewrite it
# (`run_checks.checked_runs` of `leaderboard`, `open_run`, `compare`): folder -> (that scores.json's signature, scores).
SERVED: dict[Path, tuple[tuple[int, ...], RunScores]] = {}


def load_scores(folder: str | Path) -> RunScores:
    """The one reader of a run's scores.json: the file as stored, once it passed every check (`run_scores`; a
    DamagedFile naming the file and the field if not); where this process found it not to be what the folder's records
    give and could not rewrite it, the scores recomputed from the records instead (`serve_scores`)."""
    folder = Path(folder)
    served = SERVED.get(folder.resolve())
    if served is not None and served[0] == file_state(folder / SCORES_FILE):
        return served[1]
    data = scores_bytes(folder)  # read on every call; parsed and checked once per content (`stored_scores`)
    return stored_scores(folder, data)


def stored_scores(folder: Path, data: bytes, document: Any = None) -> RunScores:
    """scores.json's bytes `data` (its `document` where the caller parsed them already) as a RunScores, parsed and
    checked once per content in a process (`parsed_once`)."""

    def parse() -> RunScores:
        return typed_scores(folder, scores_document(folder, data) if document is None else document)

    return parsed_once(SCORES_FILE, data, parse, most=SCORES_KEPT)


def scores_if_scored(folder: str | Path) -> RunScores | None:
    """`load_scores(folder)`, or None where the run has no scores.json yet (a damaged one is a DamagedFile)."""
    exists = os.path.lexists(Path(folder) / SCORES_FILE)  # a FIFO or a folder there is named by `load_scores`
    return load_scores(folder) if exists else None


def serve_scores(folder: Path, scores: RunScores) -> None:
    """`load_scores(folder)` gives `scores` for as long as the folder's scores.json stays the file it is now."""
    SERVED[Path(folder).resolve()] = (file_state(Path(folder) / SCORES_FILE), scores)


def scores_bytes(folder: Path) -> bytes:
    """scores.json's bytes (a FileNotFoundError saying to score the run where it has none)."""
    path = folder / SCORES_FILE
    if not path.exists():  # a FIFO, a device or a folder there is named as such by `read_bytes`
        raise FileNotFoundError(f"{path}: missing; run `longform-eval score {folder}` first")
    return read_bytes(path, DOCUMENT)


def scores_document(folder: Path, data: bytes) -> Any:
    """scores.json's JSON document from `data`, its bytes as just read (`scores_bytes`), not yet checked (a
    DamagedFile where it is not JSON of finite numbers)."""
    return json_document(folder / SCORES_FILE, data, rescore(folder))


def typed_scores(folder: Path, document: Any) -> RunScores:
    """The document of `folder`'s scores.json as a RunScores (`run_scores`); a DamagedFile naming the file and the
    field if it is not one."""
    try:
        return run_scores(document)
    except ScoresInvalid as error:
        raise DamagedFile(f"{folder / SCORES_FILE}: {error}; {rescore(folder)}") from None
