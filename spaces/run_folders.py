"""Responses of run folders of any benchmark, read with the runner's own readers (`Run.open`, `Run.responses`).

A run folder holds `config.yaml` (which benchmark, config and dataset) and `generations.jsonl`. Its rows come
from the benchmark plug-in (`benchmark_rows`, the run's selection applied), so two folders over the same
benchmark config give the same questions and their responses pair up by sample id. A pairwise run also brings what
its model was compared with (its plug-in's `baseline_answers`: the dataset's reference answers or a baseline run's),
so that one run folder alone offers its own comparisons. A folder that cannot be read (another schema, a run writing
it right now, a dataset that changed) is skipped with a warning naming it: one bad folder never keeps the Space from
starting; a baseline that cannot be read costs only the baseline.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from longform_eval.common.errors import LongformEvalError
from longform_eval.inference.runner import Run
from longform_eval.inference.runner.run import CONFIG_FILE

from .items import Item, item_of

# every error of the toolkit's (a missing benchmark source: SourceUnavailableError), the libraries' file errors
UNREADABLE = (LongformEvalError, OSError, ValueError, KeyError)


@dataclass(frozen=True)
class Baseline:
    """The answers a pairwise run's model was compared with, by item key; `source` says where they come from (the
    baseline run folder, or `reference`): two runs with one baseline share it."""

    name: str
    source: str
    responses: dict[str, str]


@dataclass(frozen=True)
class RunResponses:
    """One run folder's model and its responses, by item key, and its baseline's answers (pairwise runs)."""

    folder: Path
    model: str
    items: dict[str, Item]
    responses: dict[str, str]
    baseline: Baseline | None = None


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
    items = {item.key: item for item in by_key.values()}
    return RunResponses(folder, run.config.model_id, items, responses, read_baseline(run, by_key))


def read_baseline(run: Run, by_key: dict[str, Item]) -> Baseline | None:
    """The baseline's answers to the run's rows, when its benchmark's plug-in offers them (`baseline_answers`);
    None for other benchmarks and runs without a baseline. A baseline run folder that cannot be read (no answers
    left) is skipped with a warning: the run's own responses still pair up with other folders'."""
    offer = getattr(run.benchmark, "baseline_answers", None)
    if offer is None:
        return None
    try:
        found = offer(run.rows)
    except UNREADABLE as error:
        warnings.warn(f"{run.folder}: its baseline skipped ({error})", stacklevel=2)
        return None
    if found is None:
        return None
    answers = {by_key[sample_id].key: text for sample_id, text in found.answers.items() if sample_id in by_key}
    return Baseline(found.name, found.source, answers)


def read_runs(paths: Iterable[Path]) -> list[RunResponses]:
    """Every readable run folder among (and below) `paths`; an unreadable one is skipped with a warning."""
    runs = []
    for folder in run_folders(paths):
        try:
            runs.append(read_run(folder))
        except UNREADABLE as error:
            warnings.warn(f"{folder}: run folder skipped ({error})", stacklevel=2)
    return runs
