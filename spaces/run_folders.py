"""Responses of run folders of any benchmark, read with the runner's own readers (`Run.open`, `Run.responses`).

A run folder holds `config.yaml` (which benchmark, config and dataset) and `generations.jsonl`. Its rows come
from the benchmark plug-in (`benchmark_rows`, the run's selection applied), so two folders over the same
benchmark config give the same questions and their responses pair up by sample id. A folder that cannot be read
(another schema, a run writing it right now, a dataset that changed) is skipped with a warning naming it: one bad
folder never keeps the Space from starting.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from longform_eval.inference.runner import Run, RunConfigMismatch, SchemaMismatch
from longform_eval.inference.runner.run import CONFIG_FILE

from .items import Item, item_of

UNREADABLE = (RunConfigMismatch, SchemaMismatch, OSError, ValueError, KeyError)


@dataclass(frozen=True)
class RunResponses:
    """One run folder's model and its responses, by item key."""

    folder: Path
    model: str
    items: dict[str, Item]
    responses: dict[str, str]


def run_folders(paths: Iterable[Path]) -> list[Path]:
    """Each path that is a run folder (has config.yaml), and the run folders below each path that is not."""
    found: list[Path] = []
    for path in paths:
        if (path / CONFIG_FILE).is_file():
            found.append(path)
        elif path.is_dir():
            found.extend(sorted(config.parent for config in path.glob(f"**/{CONFIG_FILE}")))
        else:
            warnings.warn(f"{path}: no such run folder; skipped", stacklevel=2)
    return list(dict.fromkeys(found))


def read_run(folder: Path) -> RunResponses:
    """The run's current responses (this model, this generation config; `<think>` stripped as the run judges).

    Read-only: no lock is taken and nothing is written, so a runner can write the folder while the Space is up.
    """
    run = Run.open(folder, read_only=True)
    by_key = {row["id"]: item_of(run.benchmark, row) for row in run.rows}
    current = run.responses().items()
    responses = {by_key[sample_id].key: text for sample_id, (text, _) in current if sample_id in by_key}
    return RunResponses(folder, run.config.model_id, {item.key: item for item in by_key.values()}, responses)


def read_runs(paths: Iterable[Path]) -> list[RunResponses]:
    """Every readable run folder among (and below) `paths`; an unreadable one is skipped with a warning."""
    runs = []
    for folder in run_folders(paths):
        try:
            runs.append(read_run(folder))
        except UNREADABLE as error:
            warnings.warn(f"{folder}: run folder skipped ({error})", stacklevel=2)
    return runs
