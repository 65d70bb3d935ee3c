"""Which files make a run folder as it is shared on the Hub (`push-run` uploads them, a Hub run is copied by them)."""

from __future__ import annotations

import fnmatch

from ..runner.folder import CONFIG_FILE
from ..runner.rows_file import ROWS_FILE

SCORES = "scores.json"
TIMINGS = "timings.json"
RUN_FILES = (
    CONFIG_FILE,
    SCORES,
    "report.md",
    "comparisons.json",
    TIMINGS,
    "generations*.jsonl",
    "judgements*.jsonl",
    "failures.jsonl",
    ROWS_FILE,
    "*.png",
)


def is_run_file(name: str) -> bool:
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in RUN_FILES)
