"""A run folder's configuration against the records it holds: which settings are bound, and config.yaml kept."""

from __future__ import annotations

from pathlib import Path

import yaml

from longform_eval.common.atomic import write_text_atomic
from longform_eval.common.guarded import SETTINGS, read_bytes

from .config import RunConfig, RunConfigMismatch, bound_fields
from .folder import CONFIG_FILE, JUDGEMENT_LOGS, holds_records, read_config


def reconciled(folder: Path, config: RunConfig, force: bool, read_only: bool = False) -> RunConfig:
    """A stored setting binds once a record depends on it (a judge setting once a judgement is written, any other
    once a generation is): changing it is then refused unless `force` (output-neutral backend options are no
    change); before that, the new setting simply replaces it (a failed first command blocks nothing). config.yaml
    is written with the result unless `read_only`."""
    path = folder / CONFIG_FILE
    stored = read_config(folder) if path.is_file() else None  # an older schema is refused either way
    if stored is not None:
        changed = config.changed_fields(stored)
        generated, judged = holds_records(folder), holds_records(folder, JUDGEMENT_LOGS)
        if generated or not changed:
            config.engine = config.engine or stored.get("engine")
        if judged or not changed:
            config.judge_engine = config.judge_engine or stored.get("judge_engine")
        bound = bound_fields(changed, generated, judged)
        if bound and not force:
            message = f"{path}: the run was started with a different configuration ({', '.join(bound)})."
            raise RunConfigMismatch(bound, message, advise=True)
    if read_only:
        return config
    text = yaml.safe_dump(config.model_dump(mode="json"), sort_keys=False, allow_unicode=True)
    if not same_text(path, text):
        write_text_atomic(path, text)
    return config


def same_text(path: Path, text: str) -> bool:
    """Whether the file at `path` holds `text` (read through the guarded reader: False where it cannot be read)."""
    try:
        return read_bytes(path, SETTINGS).decode("utf-8", errors="replace") == text
    except (OSError, ValueError):
        return False
