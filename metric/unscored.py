"""The value a parser returns when a judge completion cannot be used: never a score of 0."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Unscored:
    """A judge verdict that could not be parsed or validated, with the reason why."""

    reason: str

    def __bool__(self) -> bool:
        return False


def is_unscored(value: object) -> bool:
    return isinstance(value, Unscored)
