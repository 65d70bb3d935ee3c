"""Human labels against a run's judge: where they come from (`sources`), and `calibrate`'s work on one run."""

from .calibrate import CALIBRATED_FILE, LabelMismatch, calibrate_run, run_to_calibrate, write_calibrated
from .labels import ChecklistLabel, HumanLabels, PairLabel, read_label_file
from .runs import NotCalibratable, RunLabels, read_run_labels
from .sources import read_human_labels

__all__ = [
    "CALIBRATED_FILE",
    "ChecklistLabel",
    "HumanLabels",
    "LabelMismatch",
    "NotCalibratable",
    "PairLabel",
    "RunLabels",
    "calibrate_run",
    "read_human_labels",
    "read_label_file",
    "read_run_labels",
    "run_to_calibrate",
    "write_calibrated",
]
