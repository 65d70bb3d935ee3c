"""YAML files a user writes or keeps (backend option files, a run's config.yaml), read with one-line errors.

A settings file is read through the guarded reader (`common.guarded`, kind SETTINGS): only if it is a regular file
of at most MAX_SETTINGS_BYTES (a FIFO would block, `/dev/zero` never ends). It is parsed by `BoundedLoader`, which
refuses a document that its aliases expand past MAX_YAML_VALUES values (a "billion laughs" file is a few hundred
bytes) or that refers to itself, before anything is built from it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from longform_eval.common.errors import LongformEvalError
from longform_eval.common.guarded import SETTINGS, UnreadableFile, read_bytes

MAX_SETTINGS_BYTES = SETTINGS.ceiling  # 1 MiB: an options file or a config.yaml is a few hundred bytes
MAX_YAML_VALUES = 100_000  # values of a document with its aliases expanded; a settings file holds tens


class OversizedYaml(yaml.YAMLError):
    """A document that would expand past MAX_YAML_VALUES values, refers to itself or nests too deeply."""


class UnreadableSettings(LongformEvalError, ValueError):
    """A settings file that is not a regular file, or is too large; the message says which (the caller names it)."""


class BoundedLoader(yaml.SafeLoader):
    """PyYAML's SafeLoader, but a document is checked for the size of its alias expansion before it is built."""

    def get_single_node(self) -> yaml.Node | None:
        node = super().get_single_node()
        if node is not None:
            expanded_values(node)
        return node


def children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return list(node.value) if isinstance(node, yaml.SequenceNode) else []


def expanded_values(root: yaml.Node) -> int:
    """How many values the document holds with every alias expanded (an OversizedYaml past MAX_YAML_VALUES);
    each node is counted once and its count reused (no expansion is made), so a bomb costs no time."""
    sizes: dict[int, int] = {}
    on_path: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, finished = stack.pop()
        if finished:
            on_path.discard(id(node))
            sizes[id(node)] = min(MAX_YAML_VALUES + 1, 1 + sum(sizes[id(child)] for child in children(node)))
            if sizes[id(node)] > MAX_YAML_VALUES:
                raise OversizedYaml(
                    f"holds more than {MAX_YAML_VALUES} values once its aliases (*name) are expanded; a settings "
                    "file holds tens"
                )
        elif id(node) not in sizes:
            on_path.add(id(node))
            stack.append((node, True))
            for child in children(node):
                if id(child) in on_path:
                    raise OversizedYaml(f"an alias refers to a value that holds it (line {child.start_mark.line + 1})")
                stack.append((child, False))
    return sizes[id(root)]


def load_yaml(text: str) -> Any:
    """`yaml.safe_load`, bounded (an OversizedYaml for a document too large once expanded, or nested too deeply)."""
    try:
        return yaml.load(text, Loader=BoundedLoader)  # noqa: S506 - a SafeLoader subclass
    except RecursionError:
        raise OversizedYaml("nested too deeply to read") from None
    except yaml.YAMLError:
        raise
    except ValueError as error:  # a value PyYAML cannot build, e.g. an integer of more than 4300 digits
        raise yaml.constructor.ConstructorError(problem=str(error)) from None


def settings_text(path: Path) -> str:
    """The text of a settings file: a regular file (a symlink to one is fine) of at most MAX_SETTINGS_BYTES;
    an UnreadableSettings otherwise, an OSError if it cannot be opened, a UnicodeDecodeError if it is not UTF-8."""
    try:
        data = read_bytes(path, SETTINGS)
    except UnreadableFile as error:
        raise UnreadableSettings(error.problem) from None  # the caller names the file (and its flag)
    return data.decode("utf-8")


def yaml_problem(error: yaml.YAMLError) -> str:
    """`not valid YAML (line 2, column 1): <what the parser found>`, or why the document is refused."""
    if isinstance(error, OversizedYaml):
        return f"refused YAML: {error}"
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
        options = load_yaml(settings_text(file))
    except (OSError, UnicodeDecodeError, UnreadableSettings) as error:
        raise ValueError(f"{flag} {file}: {getattr(error, 'strerror', None) or error}") from None
    except yaml.YAMLError as error:
        raise ValueError(f"{flag} {file}: {yaml_problem(error)}") from None
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise ValueError(f"{flag} {file}: expected a mapping of options (KEY: VALUE), got a {yaml_kind(options)}")
    return {str(key): value for key, value in options.items()}
