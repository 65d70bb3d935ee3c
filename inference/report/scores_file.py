"""A run's scores.json, checked to be as `longform-eval score` writes it before anything is made from it.

Checked, strictly typed, by the models `runner.scoring.write_scores` checks it with before writing it: the fields every
scores.json has (the run's identity and counts, its uncertainty fields and each judge sample's units:
`runner.schema.StoredScores`), and the figures of its benchmark (`Benchmark.scores_layout`). A file that fails is one
line naming it and the field: `report` writes nothing from a damaged scores.json.
"""

from __future__ import annotations

import copy
import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from ..runner.schema import StoredScores, figures_layout
from .json_file import DamagedFile, check_layout, read_json

SCORES_FILE = "scores.json"


def rescore(folder: Path) -> str:
    return f"run `longform-eval score {folder}` again"


# Scores recomputed from a folder's records where its scores.json is not theirs and the reader may not rewrite it
# (`run_checks.checked_runs` of `leaderboard`, `open_run`, `compare`): folder -> (that scores.json's signature, scores).
SERVED: dict[Path, tuple[tuple[int, ...], dict[str, Any]]] = {}


def load_scores(folder: str | Path) -> dict[str, Any]:
    """scores.json of a run folder as stored, once it passed every check (a DamagedFile naming the field if not); where
    this process found it not to be what the folder's records give and could not rewrite it, the scores recomputed
    from the records instead (`serve_scores`)."""
    served = SERVED.get(Path(folder).resolve())
    if served is not None and served[0] == signature(Path(folder) / SCORES_FILE):
        return copy.deepcopy(served[1])
    scores = stored_scores(Path(folder))
    check_figures(Path(folder), scores)
    return scores


def scores_if_scored(folder: str | Path) -> dict[str, Any] | None:
    """`load_scores(folder)`, or None where the run has no scores.json yet (a damaged one is a DamagedFile)."""
    exists = os.path.lexists(Path(folder) / SCORES_FILE)  # a FIFO or a folder there is named by `load_scores`
    return load_scores(folder) if exists else None


def serve_scores(folder: Path, scores: dict[str, Any]) -> None:
    """`load_scores(folder)` gives `scores` for as long as the folder's scores.json stays the file it is now."""
    SERVED[Path(folder).resolve()] = (signature(Path(folder) / SCORES_FILE), copy.deepcopy(scores))


def signature(path: Path) -> tuple[int, ...]:
    """The file as it stands (device, inode, size, change times): a file rewritten or replaced has another."""
    try:
        found = os.stat(path, follow_symlinks=False)
    except OSError:
        return ()
    return (found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns)


def stored_scores(folder: Path) -> dict[str, Any]:
    """scores.json with the fields every scores.json has checked (not yet its benchmark's figures)."""
    path = folder / SCORES_FILE
    if not path.exists():  # a FIFO, a device or a folder there is named as such by `read_json`
        raise FileNotFoundError(f"{path}: missing; run `longform-eval score {folder}` first")
    scores = read_json(path, rescore(folder))
    if not isinstance(scores, dict) or not all(isinstance(scores.get(key), str) for key in ("benchmark", "model")):
        raise DamagedFile(f"{path}: not a scores file (a JSON object with benchmark, model, ...); run `score` again")
    check_layout(path, StoredScores, scores, rescore(folder))
    check_unique_rows(path, scores, rescore(folder))
    return scores


def check_unique_rows(path: Path, scores: dict[str, Any], remedy: str) -> None:
    """A DamagedFile naming the file, the field and the sample when `rows` holds one sample twice (each row is one
    unit of every interval: a row twice would count twice)."""
    seen: set[Any] = set()
    for number, row in enumerate(scores.get("rows") or []):
        key = row.get("id", row.get("sample_id")) if isinstance(row, dict) else None
        if key is not None and key in seen:
            raise DamagedFile(f"{path}: field 'rows' (row {number}): sample {key!r} a second time; {remedy}")
        seen.add(key)


def check_figures(folder: Path, scores: dict[str, Any]) -> None:
    """scores.json's figures checked against its benchmark's layout (`Benchmark.scores_layout`)."""
    layout = scores_layout(scores["benchmark"])
    if layout is not None:
        check_layout(folder / SCORES_FILE, layout, scores, rescore(folder))


def scores_layout(name: str) -> type[BaseModel] | None:
    """The layout of benchmark `name`'s figures (`runner.schema.figures_layout`)."""
    return figures_layout(name)
