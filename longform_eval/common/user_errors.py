"""Errors a user causes, as one line each: pydantic validation errors and OS errors (a full disk, a missing file)."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

SHOWN_INPUT_CHARS = 40


def validation_problem(error: ValidationError) -> str:
    """`field 'x': <what is wrong> (got ...)` for the first problem, and how many more there are."""
    problems = error.errors(include_url=False)
    first = problems[0]
    where = ".".join(str(part) for part in first["loc"]) or "value"
    more = f" (and {len(problems) - 1} more problems)" if len(problems) > 1 else ""
    return f"field '{where}': {first['msg']}{shown_input(first)}{more}"


def shown_input(problem: dict[str, Any]) -> str:
    """The offending value when it is short and simple (a mapping or list would not fit on the line)."""
    value = problem.get("input")
    if problem["type"] == "missing" or isinstance(value, (dict, list, tuple)):
        return ""
    return f", got {repr(value)[:SHOWN_INPUT_CHARS]}"


def os_error_line(error: OSError) -> str:
    """`<file>: <reason>` (e.g. `runs/x/scores.json: No space left on device`)."""
    reason = error.strerror or str(error)
    names = [str(name) for name in (error.filename, error.filename2) if name is not None]
    return f"{' -> '.join(names)}: {reason}" if names else reason


__all__ = ["os_error_line", "validation_problem"]
