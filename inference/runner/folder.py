"""The run folder on disk: its config.yaml, whether its logs hold records, and whether a command may write into it.

A command writes only into a new folder, an empty one, or an earlier run folder (one with config.yaml): any
other folder holds someone else's files, which a report, scores or plots would overwrite.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from longform_eval.common.errors import LongformEvalError
from longform_eval.common.file_memo import parsed_once
from longform_eval.common.guarded import LOG, iter_lines
from longform_eval.common.user_errors import validation_problem

from ..yaml_files import UnreadableSettings, load_yaml, settings_text, yaml_kind, yaml_problem
from .config import RunConfig
from .records import check_own_log
from .schema import SCHEMA_VERSION, SchemaMismatch, stored_schema_version

CONFIG_FILE = "config.yaml"
GENERATION_LOGS = "generations*.jsonl"  # a data-parallel shard (generations.rank<N>.jsonl) included
JUDGEMENT_LOGS = "judgements*.jsonl"
RUN_LOGS = (GENERATION_LOGS, JUDGEMENT_LOGS, "failures*.jsonl")  # every append-only log a command writes


class RunFolderError(LongformEvalError, ValueError):
    """A run folder that cannot be read or written as one; the message names it and says what is wrong."""


def transient_name(name: str) -> bool:
    """Files a starting command makes before config.yaml: its lock (a killed one's too) and config.yaml's temporary."""
    return name.startswith(".lock") or (name.startswith(f".{CONFIG_FILE}.") and name.endswith(".tmp"))


def check_writable_folder(folder: Path, what: str = "a run folder", marks: tuple[str, ...] = (CONFIG_FILE,)) -> None:
    """Refuse a path that is a file, an existing folder that holds files but none of `marks` (the files an
    earlier run of this command leaves): writing there would overwrite files it did not make; and an earlier run
    folder whose append-only log is not its own file (a symlink, a hard link, a FIFO, ...): it would be written
    through."""
    rule = f"longform-eval writes only into a new or empty folder or an earlier {what.removeprefix('a ')}"
    if folder.exists() and not folder.is_dir():
        raise RunFolderError(f"{folder}: is a file, not {what}; {rule}")
    if not folder.is_dir():
        return
    if any((folder / mark).is_file() for mark in marks):
        for log in sorted(path for pattern in RUN_LOGS for path in folder.glob(pattern)):
            check_own_log(log)
        return
    try:
        foreign = sorted(entry.name for entry in folder.iterdir() if not transient_name(entry.name))
    except OSError as error:
        raise RunFolderError(f"{folder}: cannot read it ({error.strerror or error})") from error
    if foreign:
        raise RunFolderError(
            f"{folder}: not empty and not {what} (no {marks[0]}; it holds {foreign[0]}"
            f"{f' and {len(foreign) - 1} more' if len(foreign) > 1 else ''}); {rule}: give another --out"
        )


def read_config(folder: Path) -> dict[str, Any]:
    """config.yaml as stored, checked to be a valid configuration of this schema (a RunFolderError naming the file
    if it is not)."""
    path = folder / CONFIG_FILE
    if not path.exists():  # a FIFO or a folder there is named as such by `settings_text`
        raise FileNotFoundError(f"{path}: not a run folder (no {CONFIG_FILE})")
    try:
        text = settings_text(path)
        stored = parsed_once(CONFIG_FILE, text, lambda: load_yaml(text), copy.deepcopy)  # read often, parsed once
    except UnreadableSettings as error:
        raise RunFolderError(f"{path}: {error}; restore it or start a new --out") from None
    except UnicodeDecodeError as error:
        raise RunFolderError(f"{path}: not UTF-8 text ({error.reason}); restore it or start a new --out") from None
    except yaml.YAMLError as error:
        raise RunFolderError(f"{path}: {yaml_problem(error)}; restore it or start a new --out") from None
    if not isinstance(stored, dict):
        raise RunFolderError(f"{path}: expected a mapping of settings, got a {yaml_kind(stored)}")
    found = stored_schema_version(stored)
    if found is None:
        raise RunFolderError(
            f"{path}: not the config.yaml of a longform-eval run (no schema_version, benchmark or package_version); "
            "the folder is left as it is: give a run folder, or a new or empty one"
        )
    if found != SCHEMA_VERSION:
        raise SchemaMismatch(
            f"{path}: written with run-folder schema version {found} (longform-eval "
            f"{stored.get('package_version', '?')}); this version reads schema "
            f"{SCHEMA_VERSION}. Start the run in a new --out folder (this one is left as it is)."
        )
    validated_config(path, stored)
    return stored


def validated_config(path: Path, settings: dict[str, Any]) -> RunConfig:
    """`settings` (config.yaml's, perhaps with changes) as a RunConfig; a RunFolderError names `path` and the field."""
    try:
        return RunConfig.model_validate(settings)
    except ValidationError as error:
        raise RunFolderError(f"{path}: {validation_problem(error)}") from None


def run_labels(folder: Path) -> tuple[str, str | None]:
    """(model, judge) of a run folder as people read them: config.yaml's display names, else the model ids."""
    config = validated_config(Path(folder) / CONFIG_FILE, read_config(Path(folder)))
    return config.model_label, config.judge_label


def holds_records(folder: Path, *patterns: str) -> bool:
    """Whether any log matching `patterns` (default: generations and judgements) holds a complete record."""
    logs = [path for pattern in patterns or (GENERATION_LOGS, JUDGEMENT_LOGS) for path in folder.glob(pattern)]
    return any(has_complete_line(path) for path in logs if path.is_file())


def has_complete_line(path: Path) -> bool:
    return any(line.endswith(b"\n") and line.strip() for _, line in iter_lines(path, LOG))
