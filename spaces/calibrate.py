"""`longform-eval calibrate RUN... --human SOURCE`: each run's headline figure calibrated by human labels (PPI++).

SOURCE is the Space's SQLite database (read here: the Space package sits above the runner's), its export folder, its
journal or votes repo (`hf://datasets/ORG/NAME`), or a JSONL of labels (`inference.calibration.sources`). Every run
and the labels are read and matched before any calibrated.json is written; a run whose labels do not fit it (another
config, the other kind of labels) is one line and nothing is written. The command's options are `cli.py`'s.
"""

from __future__ import annotations

import argparse
from dataclasses import asdict
from pathlib import Path

from longform_eval.inference.calibration import (
    HumanLabels,
    calibrate_run,
    read_human_labels,
    run_to_calibrate,
    write_calibrated,
)
from longform_eval.inference.calibration.labels import add_record
from longform_eval.inference.calibration.sources import is_sqlite
from longform_eval.inference.hub.paths import is_hub_path
from longform_eval.inference.report.calibration_view import calibration_lines

from .storage import VoteStore
from .votes_file import NotAVotesDatabase, check_votes_file


def human_labels(source: str | Path) -> HumanLabels:
    """The labels in `source`; the Space's database read through its store (migrated as `space-export` does)."""
    path = Path(source) if not is_hub_path(source) else None
    if path is None or not path.is_file() or not is_sqlite(path):
        return read_human_labels(source)
    if not check_votes_file(path, f"--human {path}"):
        raise NotAVotesDatabase(f"--human {path}: holds no votes (an empty file or database)")
    store = VoteStore(path)
    labels = HumanLabels(str(path))
    for number, vote in enumerate(store.votes(), 1):
        add_record(labels, asdict(vote), str(path), f"vote {number}")
    for number, annotation in enumerate(store.annotations(), 1):
        add_record(labels, annotation, str(path), f"annotation {number}")
    return labels


def run_calibrate(args: argparse.Namespace) -> int:
    labels = human_labels(args.human)
    documents = []
    for folder in args.runs:
        if not (folder / "scores.json").exists():  # a FIFO or a folder there is named when it is read
            raise FileNotFoundError(f"{folder}: no scores.json (score the run first: longform-eval score {folder})")
        documents.append((folder, calibrate_run(run_to_calibrate(folder), labels, args.level, args.seed)))
    for folder, document in documents:
        path = write_calibrated(folder, document)
        print("\n".join([f"{document['name']}: {path}", *calibration_lines(folder)]))
    return 0


__all__ = ["human_labels", "run_calibrate"]
