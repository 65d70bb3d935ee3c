"""YAML files a user writes or keeps (backend option files, a run's config.yaml), read with one-line errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml


def yaml_problem(error: yaml.YAMLError) -> str:
    """`not valid YAML (line 2, column 1): <what the parser found>`."""
    mark = getattr(error, "problem_mark", None)
    where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
    return f"not valid YAML{where}: {getattr(error, 'problem', None) or error}"


def yaml_kind(value: Any) -> str:
    return {list: "list", str: "string", int: "number", float: "number", bool: "boolean", type(None): "nothing"}.get(
        type(value), type(value).__name__
    )


def options_file(file: Path, flag: str) -> dict[str, Any]:
    """A YAML mapping of options (an empty file: none); a ValueError naming `flag` and the file if it is not one."""
    try:
        options = yaml.safe_load(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise ValueError(f"{flag} {file}: {getattr(error, 'strerror', None) or error}") from None
    except yaml.YAMLError as error:
        raise ValueError(f"{flag} {file}: {yaml_problem(error)}") from None
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise ValueError(f"{flag} {file}: expected a mapping of options (KEY: VALUE), got a {yaml_kind(options)}")
    return {str(key): value for key, value in options.items()}
