"""A run folder's configuration against the records it holds: which settings are bound, and config.yaml kept."""

from __future__ import annotations

from pathlib import Path

import yaml

from longform_eval.common.atomic import write_text_atomic

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
            raise RunConfigMismatch(
                bound,
                f"{path}: the run was started with a different configuration ({', '.join(bound)}). "
                "Use another --out folder, or --force to add records of the new configuration beside the old.",
            )
    if read_only:
        return config
    text = yaml.safe_dump(config.model_dump(mode="json"), sort_keys=False, allow_unicode=True)
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        write_text_atomic(path, text)
    return config
