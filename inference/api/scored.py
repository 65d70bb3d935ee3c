"""What the API's readers share of a run's scores.json: the file as `report` reads it, and what counts as a figure."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..report.scores_file import SCORES_FILE, load_scores


def read_scores(folder: Path) -> dict[str, Any]:
    """scores.json as `report` reads it (every field checked), or nothing before the run is scored."""
    return load_scores(folder) if (folder / SCORES_FILE).exists() else {}  # a FIFO there is named by load_scores


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
