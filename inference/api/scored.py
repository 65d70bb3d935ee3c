"""What the API's readers share of a run's scores.json: the file as `report` reads it, and what counts as a figure."""

from __future__ import annotations

from typing import Any


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
