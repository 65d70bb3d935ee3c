"""How the leaderboard names models and runs (by model and benchmark, never by a folder or cache path), and the
judge-only comparisons of pairwise run folders (their `scores.json` battles: the model against its baseline).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from longform_eval.common.bounded_json import loads_json
from longform_eval.common.errors import LongformEvalError
from longform_eval.common.guarded import DOCUMENT, read_bytes
from longform_eval.inference.benchmarks.run_scores import RunScores
from longform_eval.inference.calibration.runs import PAIRWISE, run_labels
from longform_eval.inference.report.scores_file import load_scores
from longform_eval.inference.runner.folder import run_labels as folder_labels

from .records import OUTCOMES
from .standings import JudgedPair

SUFFIX = re.compile(r"^(?P<head>.*?)(?P<tail> \([^()]*\))?$", re.S)
BACKEND = re.compile(r"^(?P<backend>[A-Za-z][\w.-]*):(?P<rest>.+)$", re.S)
FILE_SUFFIXES = (".gz", ".jsonl", ".json")


def is_path(text: str) -> bool:
    return text.startswith(("/", "./", "../", "~")) or bool(re.match(r"^[A-Za-z]:[\\/]", text))


def short_path(text: str) -> str:
    name = Path(text.rstrip("/\\")).name or text
    for suffix in FILE_SUFFIXES:
        name = name.removesuffix(suffix)
    return name


def model_name(label: str) -> str:
    """A model as the leaderboard names it: a file path in its id cut to the file's name
    ('replay:/tmp/runs/a.jsonl' -> 'replay:a'); other ids ('openai:gpt-4o', 'gpt4o_0806') as they are."""
    parts = SUFFIX.match(label)
    head, tail = (parts["head"], parts["tail"] or "") if parts else (label, "")
    backend = BACKEND.match(head)
    if backend and is_path(backend["rest"]):
        head = f"{backend['backend']}:{short_path(backend['rest'])}"
    elif is_path(head):
        head = short_path(head)
    return head + tail


def named(label: str, benchmarks: Sequence[str]) -> str:
    """'gpt4o_0806 · hellobench:all': the model and the benchmarks (`name:config`) it was voted on."""
    return " · ".join([model_name(label), ", ".join(benchmarks)]) if benchmarks else model_name(label)


def run_name(scores: dict[str, Any], model: str | None = None) -> str:
    """A run folder's name on the leaderboard: its model (`model`, its display name, else scores.json's id) and
    benchmark, e.g. 'GPT-4o · hellobench:chat', 'imported:a · longbench_write:all'."""
    benchmark = str(scores.get("benchmark"))
    if scores.get("config"):
        benchmark = f"{benchmark}:{scores['config']}"
    return f"{model_name(model or str(scores.get('model')))} · {benchmark}"


def display_names(folder: Path) -> tuple[str | None, str | None]:
    """(model, judge) of a run folder by their display names (`--name`, `--judge-name`), else their ids, as
    config.yaml has them; (None, None) where it cannot be read (scores.json's ids are then shown)."""
    try:
        return folder_labels(folder)
    except (LongformEvalError, OSError, ValueError):
        return None, None


def unchecked_scores(folder: Path) -> dict[str, Any] | None:
    """scores.json as read, unchecked; None where it is missing or unreadable (not a regular file, past DOCUMENT's
    ceiling, not JSON within `bounded_json`'s bounds)."""
    try:
        found = loads_json(read_bytes(folder / "scores.json", DOCUMENT))
    except (OSError, ValueError):  # UnreadableFile and JsonRefused are ValueErrors
        return None
    return found if isinstance(found, dict) else None


@dataclass(frozen=True)
class RunFile:
    """A run folder's scores.json, read once for the whole board: `scores` as `unchecked_scores` reads it (None when
    unreadable), `checked` the same scores.json typed when it also passed `load_scores`'s checks (else None)."""

    folder: Path
    scores: dict[str, Any] | None
    checked: RunScores | None


def read_run_file(folder: Path) -> RunFile:
    try:
        scores = load_scores(folder)
    except (OSError, ValueError):  # not scored yet or a damaged scores.json: listed as read, never judged
        return RunFile(folder, unchecked_scores(folder), None)
    return RunFile(folder, scores.document(), scores)


def judged_pairs(folders: Iterable[Path], labels: Collection[str] = ()) -> list[JudgedPair]:
    """The judge's verdicts of every pairwise run folder among `folders` on its model against its baseline, read as
    `calibrate` reads them (scores.json checked, the benchmark's `pairwise_battles`), under the names the arena gives
    them (`labels`: the model with the folder's name appended when that name was taken)."""
    return run_file_pairs([read_run_file(folder) for folder in folders], labels)


def run_file_pairs(files: Iterable[RunFile], labels: Collection[str] = ()) -> list[JudgedPair]:
    """`judged_pairs` of run folders already read."""
    pairs = []
    for found in files:
        if found.checked is None:
            continue
        folder = found.folder
        try:
            run = run_labels(folder, found.checked)
        except (OSError, ValueError):  # a benchmark without pairs: none
            continue
        if run.kind != PAIRWISE or not run.baseline:
            continue
        label = f"{run.model} ({folder.name})" if f"{run.model} ({folder.name})" in labels else run.model
        pairs += [
            JudgedPair(f"{run.item_prefix}{item}", label, run.baseline, outcome)
            for item, outcome in run.outcomes.items()
            if outcome in OUTCOMES
        ]
    return pairs
