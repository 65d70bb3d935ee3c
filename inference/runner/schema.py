"""Typed records of a run folder, with the schema version they were written in.

A generation is keyed by (sample id, model id, generation-config hash), a judgement by (judgement key, judge
id, judge-config hash): a new model or judge on an old folder makes new calls and keeps the old records.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from longform_eval.common.errors import LongformEvalError
from longform_eval.common.hashing import text_hash

from ..benchmarks.run_scores import (  # scores.json's model, below the benchmarks' hooks that take it
    SCHEMA_VERSION,
    SampleUnits,
    ScoreReport,
    ScoresInvalid,
    StoredScores,
    VarianceParts,
)

__all__ = ["SCHEMA_VERSION", "SampleUnits", "ScoreReport", "ScoresInvalid", "StoredScores", "VarianceParts"]


class SchemaMismatch(LongformEvalError, ValueError):
    """A run folder written by another schema version."""


def stored_schema_version(settings: dict[str, Any]) -> Any:
    """The run-folder schema a config.yaml's `settings` were written in: its `schema_version`; 1 for the first
    schema's (which wrote none), known by its `benchmark` or `package_version`; None for another tool's file."""
    if "schema_version" in settings:
        return settings["schema_version"]
    return 1 if "benchmark" in settings or "package_version" in settings else None


def config_hash(*parts: Any) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:16]


class Record(BaseModel):
    model_config = ConfigDict(extra="forbid")

    schema_version: int = SCHEMA_VERSION
    # The fields whose text held what UTF-8 cannot encode (a lone surrogate), written as backslash escapes
    # (`RecordLog.append` marks them); left out of the record when there is none.
    escaped: list[str] = Field(default_factory=list, exclude_if=lambda fields: not fields)


class GenerationRecord(Record):
    KEY: ClassVar[tuple[str, ...]] = ("sample_id", "model", "config_hash")

    sample_id: str
    model: str
    config_hash: str
    prompt_hash: str | None = None
    response: str
    finish_reason: str | None = None
    truncated: bool = False
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    seconds: float | None = None
    attempts: int = 1

    @property
    def generation_hash(self) -> str:
        """What a judgement was made of: a changed or regenerated response invalidates its judgements."""
        return text_hash(self.response)


class JudgementRecord(Record):
    KEY: ClassVar[tuple[str, ...]] = ("key", "judge", "config_hash")

    key: str
    sample_id: str
    judge: str
    config_hash: str
    generation_hash: str
    completion: str
    completions: list[str]
    attempts: int
    verdict: Any = None
    unscored_reason: str | None = None
    rescue: str | None = None  # which lenient-parser rescue gave the verdict, if any
    stripped_think: bool = False
    meta: dict[str, Any] = {}
