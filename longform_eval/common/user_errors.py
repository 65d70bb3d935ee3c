"""Errors a user causes, as one line each: pydantic validation errors and OS errors (a full disk, a missing file)."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from .plurals import counted

SHOWN_INPUT_CHARS = 40


def validation_problem(error: ValidationError) -> str:
    """`field 'x': <what is wrong> (got ...)` for the first problem, and how many more there are."""
    problems = error.errors(include_url=False)
    first = problems[0]
    where = ".".join(str(part) for part in first["loc"]) or "value"
    more = f" (and {counted(len(problems) - 1, 'more problem')})" if len(problems) > 1 else ""
    return f"field '{where}': {first['msg']}{shown_input(first)}{more}"


def document_problem(error: ValidationError, document: Any) -> str:
    """`validation_problem(error)` with the field named by its path in `document` (the JSON document validated), without
    the names pydantic adds for the member of a union it tried (`variance_split.str` is the field `variance_split`)."""
    first = error.errors(include_url=False)[0]
    named = f"field '{field_of(document, first['loc'], first['type'] == 'missing')}': " if first["loc"] else ""
    return validation_problem(error).replace(f"field '{dotted(first['loc'])}': ", named, 1)


def dotted(loc: tuple[str | int, ...]) -> str:
    return ".".join(str(part) for part in loc) or "value"


def field_of(document: Any, loc: tuple[str | int, ...], missing: bool) -> str:
    """The dotted path of `loc` in `document`; a `missing` field's own name is kept."""
    found: list[str | int] = []
    node = document
    for part in loc:
        if holds(node, part):
            node = node[part]
            found.append(part)
    if missing and loc and (not found or found[-1] != loc[-1]):
        found.append(loc[-1])
    return dotted(tuple(found))


def holds(node: Any, part: str | int) -> bool:
    """Whether `part` is a key of the JSON object `node` or an index of the JSON list `node`."""
    if isinstance(node, dict):
        return part in node
    return isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node)


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


__all__ = ["document_problem", "os_error_line", "validation_problem"]
