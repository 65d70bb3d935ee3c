"""Typed records of a run folder, with the schema version they were written in.

A generation is keyed by (sample id, model id, generation-config hash), a judgement by (judgement key, judge
id, judge-config hash): a new model or judge on an old folder makes new calls and keeps the old records.
"""

from __future__ import annotations

import hashlib
import json
from typing import Annotated, Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator, model_validator

from longform_eval.common.errors import LongformEvalError
from longform_eval.common.hashing import text_hash
from longform_eval.common.user_errors import validation_problem

from ..benchmarks.layouts import Count, Figure, Intervals, Layout

SCHEMA_VERSION = 2


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


class ScoreReport(BaseModel):
    """scores.json: the run's identity and counts, then the benchmark's own figures at the top level."""

    model_config = ConfigDict(extra="allow")

    schema_version: int = SCHEMA_VERSION
    benchmark: str
    config: str
    model: str
    judge: str | None
    n_samples: int
    n_generated: int
    n_truncated_generations: int
    n_pending_generations: int
    n_pending_judge_calls: int
    n_failed_calls: int = 0
    parser_rescues: dict[str, int] = {}
    complete: bool
    deviations: list[str]
    # The hash of what the figures were computed from (`runner.inputs.records_hash`): a reader compares it with the
    # folder as it is now. Empty in a scores.json written before it was kept.
    inputs: str = ""


# ----- scores.json as it is written and read back (`runner.scoring.write_scores`, `report.scores_file`) -----------
class VarianceParts(Layout):
    """One figure's variance split into prompts and judge, as `runner.uncertainty.judge_noise` writes it."""

    se: float
    se_twice_the_prompts: float
    se_twice_the_judge_samples: Figure = None
    prompt_share: float
    judge_share: float
    n: Count


class SampleUnits(Layout):
    """Each judge sample's per-unit columns (sample 0 first), over `ids` in the order of the unit table the run's
    per-unit records give (`Benchmark.unit_table`); null where a sample left a unit unscored. Kept where a run has
    several judge samples, so that its units (their mean) are read from scores.json, never rescored from the folder."""

    model_config = ConfigDict(strict=True, extra="forbid")

    ids: list[str]
    samples: Annotated[list[dict[str, list[Figure]]], Field(min_length=2)]

    @model_validator(mode="after")
    def one_value_per_unit(self) -> SampleUnits:
        names = set(self.samples[0])
        for number, columns in enumerate(self.samples):
            if set(columns) != names:
                raise ValueError(f"sample {number} has columns {sorted(columns)}, sample 0 {sorted(names)}")
            for name, column in columns.items():
                if len(column) != len(self.ids):
                    raise ValueError(
                        f"sample {number}, column {name!r}: {len(column)} values for {len(self.ids)} units"
                    )
        return self


class StoredScores(ScoreReport):
    """What every scores.json holds, the uncertainty fields included (absent in one written before intervals), checked
    strictly: by `runner.scoring.write_scores` before it writes the file, by `report.scores_file` when it is read."""

    model_config = ConfigDict(strict=True, extra="allow")

    judge_samples: Annotated[int, Field(ge=1)] = 1
    judge_sd: Figure = None
    intervals: Intervals = {}
    interval_method: str = ""
    variance_split: str | dict[str, VarianceParts | None] = ""
    # With several judge samples: each sample's units (None: no scored units yet). Absent in a scores.json of one
    # judge sample, and in one written before it was kept (a reader of its units asks for it to be scored again).
    sample_units: SampleUnits | None = None

    @field_validator("sample_units")
    @classmethod
    def units_of_every_sample(cls, units: SampleUnits | None, info: ValidationInfo) -> SampleUnits | None:
        expected = info.data.get("judge_samples")
        if units is not None and expected is not None and len(units.samples) != expected:
            raise ValueError(f"{len(units.samples)} judge samples, judge_samples says {expected}")
        return units


class ScoresInvalid(LongformEvalError, ValueError):
    """A scores.json document that is not as it is read back; the message names the field."""


def check_scores(document: Any) -> None:
    """A ScoresInvalid naming the first field of `document` (scores.json as JSON gives it back) that the fields every
    scores.json has (`StoredScores`) or its benchmark's figures (`Benchmark.scores_layout`) refuse."""
    if not isinstance(document, dict):
        raise ScoresInvalid("not a JSON object")
    for layout in (StoredScores, figures_layout(document.get("benchmark"))):
        if layout is None:
            continue
        try:
            layout.model_validate(document, strict=True)
        except ValidationError as error:
            raise ScoresInvalid(validation_problem(error)) from None


def figures_layout(name: Any) -> type[BaseModel] | None:
    """The layout of benchmark `name`'s figures; None for a benchmark that declares none or is not installed (a run
    of it can still be listed; `report` refuses it, as its config.yaml names a benchmark it does not know)."""
    from ..benchmarks import benchmark_class  # the registry loads the plug-ins: only where a scores.json is checked

    try:
        return benchmark_class(name).scores_layout if isinstance(name, str) else None
    except ValueError:
        return None
