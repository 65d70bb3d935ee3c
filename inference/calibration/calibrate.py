"""`calibrate`'s work on one run: match the human labels to the run's judged units, make the headline figure three
ways (`metric.calibration`) and write `calibrated.json` beside scores.json.

Pairwise labels match a run's comparison by item and model pair: an item id as the Space names it
(`benchmark:config/<sample id>`) or the sample id alone; a label with the run's two models in the other order is
turned round (A and B exchanged). Checklist labels match a HelloBench row by row id and the run's model; their row
score is weighted as the metric weighs the judge's (`metric.helloeval.weights`). Labels of other models are left out
and counted; labels of the run's models on items it did not judge refuse the run (another config, another dataset).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from longform_eval.common.atomic import write_text_atomic
from longform_eval.common.errors import LongformEvalError
from longform_eval.common.plurals import counted
from longform_eval.metric.calibration import Calibrated, calibrate_overall, calibrate_win_rate
from longform_eval.metric.helloeval.weights import flat_weights
from longform_eval.metric.pairwise import Outcome, swap

from ..report.calibration_view import CALIBRATED_FILE
from ..runner.folder import read_config
from ..runner.lock import lock_run_folder
from .labels import HumanLabels
from .runs import PAIRWISE, RunLabels, read_run_labels

METHOD = (
    "judge-only: the judge's labels on every unit; human-only: the human labels alone (clustered by unit); ppi++: "
    "prediction-powered inference with a tuned power lam in [0, 1] (Angelopoulos et al. 2023, PPI++); normal "
    "intervals. Only the PPI++ and human-only intervals cover the humans' figure; the judge-only one carries the "
    "judge's bias."
)


class LabelMismatch(LongformEvalError, ValueError):
    """The human labels name the run's models but not its units, or are of the other kind."""


def pair_matches(run: RunLabels, labels: HumanLabels) -> tuple[list[tuple[str, str]], Counter]:
    """(item, outcome in the run's frame) for each label of the run's model pair, and what was left out."""
    found, left = [], Counter()
    unknown: list[str] = []
    for label in labels.pairs:
        item = label.item_id.removeprefix(run.item_prefix)
        if (label.model_a, label.model_b) == (run.model, run.baseline):
            outcome = label.outcome
        elif (label.model_b, label.model_a) == (run.model, run.baseline):
            outcome = swap(Outcome(label.outcome)).value
        else:
            left["other models"] += 1
            continue
        if item not in run.outcomes:
            unknown.append(label.item_id)
            continue
        found.append((item, outcome))
    refuse_unmatched(run, labels.source, unknown, found)
    left["items not judged"] = len(unknown)
    refuse_no_match(run, labels, found, left)
    return found, left


def checklist_matches(run: RunLabels, labels: HumanLabels) -> tuple[list[tuple[str, float]], Counter]:
    """(row, human row score) for each annotation of the run's model, and what was left out."""
    weights = flat_weights()
    found, left = [], Counter()
    unknown: list[str] = []
    for label in labels.checklists:
        if label.model != run.model:
            left["other models"] += 1
            continue
        row = label.row_id.removeprefix(run.item_prefix)
        if row not in run.rows:
            unknown.append(label.row_id)
            continue
        row_weights = weights[run.subcategories[row]]
        if len(row_weights) != len(label.checklist_scores):
            raise LabelMismatch(
                f"{labels.source}: row {row} has {counted(len(row_weights), 'checklist')} in {run.folder}, the "
                f"annotation scores {len(label.checklist_scores)}"
            )
        found.append((row, sum(s * w for s, w in zip(label.checklist_scores, row_weights, strict=True))))
    refuse_unmatched(run, labels.source, unknown, found)
    left["rows not judged"] = len(unknown)
    refuse_no_match(run, labels, found, left)
    return found, left


def refuse_unmatched(run: RunLabels, source: str, unknown: list[str], found: list) -> None:
    if unknown and not found:
        raise LabelMismatch(
            f"{source}: {counted(len(unknown), 'human label')} {'names' if len(unknown) == 1 else 'name'} the models "
            f"of {run.folder} ({run.name}) but none of its judged items (first: {unknown[0]!r}); are they of another "
            "benchmark config or dataset?"
        )


def refuse_no_match(run: RunLabels, labels: HumanLabels, found: list, left: Counter) -> None:
    """No label of the run's models: calibrated.json would hold no human figure."""
    if found:
        return
    held = len(labels.pairs) + len(labels.checklists)
    if not held:
        raise LabelMismatch(f"{labels.source}: holds no human labels to calibrate {run.folder} ({run.name}) with")
    why = ", ".join(f"{count} {reason}" for reason, count in left.items() if count)
    raise LabelMismatch(
        f"{labels.source}: none of its {held} human labels is of the models of {run.folder} ({run.name}): {why}"
    )


def check_kind(run: RunLabels, labels: HumanLabels) -> None:
    has, other = (labels.pairs, labels.checklists) if run.kind == PAIRWISE else (labels.checklists, labels.pairs)
    if not has and other:
        wanted = (
            "pairwise labels (item_id, model_a, model_b, outcome)"
            if run.kind == PAIRWISE
            else ("checklist annotations (row_id, model, checklist_scores)")
        )
        raise LabelMismatch(f"{labels.source}: holds no {wanted}, which {run.folder} ({run.name}) needs")


def calibrate_run(run: RunLabels, labels: HumanLabels, level: float = 0.95, seed: int = 0) -> dict[str, Any]:
    """calibrated.json's document for `run`. Raises LabelMismatch (see the module's doc; no label of the run's
    models is one too)."""
    check_kind(run, labels)
    if run.kind == PAIRWISE:
        matched, left = pair_matches(run, labels)
        figure: Calibrated = calibrate_win_rate(run.outcomes, matched, level, seed)
        scale = "0..1 (a fraction; shown as a percentage)"
    else:
        matched, left = checklist_matches(run, labels)
        figure = calibrate_overall(run.rows, matched, level, seed)
        scale = "-300..100"
    return {
        "run": str(run.folder),
        "name": run.name,
        "benchmark": run.benchmark,
        "config": run.config,
        "model": run.model,
        "baseline": run.baseline,
        "judge": run.judge,
        "human_source": labels.source,
        "level": level,
        "seed": seed,
        "labels_left_out": {reason: n for reason, n in left.items() if n},
        "method": METHOD,
        "figures": {figure.figure: figure.to_dict() | {"scale": scale}},
    }


def run_to_calibrate(folder: Path) -> RunLabels:
    """The judge labels of run folder `folder`, its lock taken (the command releases it when it ends) as for any
    command that writes into a run: a folder that is not a run (no config.yaml) is refused before anything is read
    or written."""
    read_config(folder)
    lock_run_folder(folder)
    return read_run_labels(folder)


def write_calibrated(folder: Path, document: dict[str, Any]) -> Path:
    return write_text_atomic(Path(folder) / CALIBRATED_FILE, json.dumps(document, indent=2, allow_nan=False) + "\n")


__all__ = ["CALIBRATED_FILE", "LabelMismatch", "calibrate_run", "run_to_calibrate", "write_calibrated"]
