"""The worked example of LongGenBench's card (the first block of its "How to Use") and of its Space's page: the
arguments of one `compute` call."""

from typing import Any

ITEM: dict[str, Any] = {
    "id": "demo",
    "scenario": "skyscraper",
    "subtask_type": "Floor",
    "num_subtasks": 4,
    "checks": [
        {"kind": "single", "subtask": 2, "description": "gym"},
        {"kind": "range", "subtask": 3, "description": "hotel"},
        {"kind": "range", "subtask": 4, "description": "hotel"},
    ],
}
OUTPUT = "#*# Floor 1: lobby #*# Floor 2: a gym #*# Floor 3: hotel rooms"
EXAMPLE: dict[str, Any] = {
    "predictions": [OUTPUT],
    "references": [ITEM],
    # one judge completion per check; None where the check's floor is missing (floor 4)
    "judge_completions": [["Yes.", "no", None]],
}
DIGITS = 2  # the decimals its card prints its figures with, and its Space page shows
