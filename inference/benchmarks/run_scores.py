"""scores.json as one typed model (`RunScores`), built from the JSON document by one function (`RunScores.of`, with
the layout of the benchmark's figures that `scores_json.run_scores` finds in the registry).

`runner.scoring.write_scores` builds it before writing the file and `report.scores_file.load_scores` when reading it:
the fields every scores.json has (`StoredScores`: the run's identity and counts, its uncertainty fields, each judge
sample's units) are its attributes, the benchmark's figures are `figures` (its `Benchmark.scores_layout`). The file
on disk is the document as written (`RunScores.document()`), so that old run folders and Hub runs read unchanged.
Here, below the runner and the report, so that the benchmarks' hooks take it.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from longform_eval.common.bounded_json import json_copy
from longform_eval.common.errors import LongformEvalError
from longform_eval.common.plurals import counted
from longform_eval.common.user_errors import document_problem

from .layouts import Count, Figure, Figures, Intervals, Layout

SCHEMA_VERSION = 2
NAMED = ("benchmark", "model")  # what makes a JSON object a scores file at all


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
                        f"sample {number}, column {name!r}: {counted(len(column), 'value')} for "
                        f"{counted(len(self.ids), 'unit')}"
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
    interval_notes: dict[str, str] = {}  # why a figure has no interval
    variance_split: str | dict[str, VarianceParts | None] = ""
    # With several judge samples: each sample's units (None: no scored units yet). Absent in a scores.json of one
    # judge sample, and in one written before it was kept (a reader of its units asks for it to be scored again).
    sample_units: SampleUnits | None = None

    @field_validator("sample_units")
    @classmethod
    def units_of_every_sample(cls, units: SampleUnits | None, info: ValidationInfo) -> SampleUnits | None:
        expected = info.data.get("judge_samples")
        if units is not None and expected is not None and len(units.samples) != expected:
            raise ValueError(f"{counted(len(units.samples), 'judge sample')}, judge_samples says {expected}")
        return units


class RunScores(StoredScores):
    """A run's scores.json, typed: every scores.json's fields as attributes, the benchmark's figures as `figures`.
    Made by `RunScores.of` alone (`scores_json.run_scores`); immutable (a changed figure is a new document, checked
    again)."""

    model_config = ConfigDict(strict=True, extra="allow", frozen=True)

    _figures: Layout = PrivateAttr()
    _document: dict[str, Any] = PrivateAttr()

    @property
    def figures(self) -> Any:
        """The benchmark's figures as its `Benchmark.scores_layout` (a `Layout` of the document where it has none)."""
        return self._figures

    @property
    def has_intervals(self) -> bool:
        """Whether it keeps `intervals` (maybe none: `{}`); one written before intervals does not."""
        return "intervals" in self.model_fields_set

    def document(self) -> dict[str, Any]:
        """scores.json's JSON document, as it was built from (and is written): a copy the caller may change."""
        return json_copy(self._document)

    @classmethod
    def of(cls, document: Any, layout: type[BaseModel] | None) -> RunScores:
        """`document` (scores.json as JSON gives it back) with its benchmark's figures as `layout` (None: `Layout`);
        a ScoresInvalid naming the first field refused. `scores_json.run_scores` finds the layout."""
        if not isinstance(document, dict) or not all(isinstance(document.get(key), str) for key in NAMED):
            raise ScoresInvalid("not a scores file (a JSON object with benchmark, model, ...)")
        try:
            scores = cls.model_validate(document, strict=True)
            unique_rows(document)
            figures = (layout or Layout).model_validate(document, strict=True)
        except ValidationError as error:
            raise ScoresInvalid(document_problem(error, document)) from None
        scores._figures = figures
        scores._document = json_copy(document)
        return scores


class ScoresInvalid(LongformEvalError, ValueError):
    """A scores.json document that is not as it is read back; the message names the field."""


def figures_of(layout: type[BaseModel] | None, figures: dict[str, Any]) -> Any:
    """Figures built as a JSON object (one judge sample's, as a benchmark's `score` builds them) as its
    `scores_layout` (`Layout` where it declares none), keeping the object as JSON gives it back (`Layout.document`):
    what `Benchmark.score` returns and the hooks over the figures take (`Benchmark.unit_table`)."""
    document = json.loads(json.dumps(figures, ensure_ascii=False))
    try:
        typed = (layout or Figures).model_validate(document, strict=True)
    except ValidationError as error:
        raise ScoresInvalid(f"the benchmark's figures: {document_problem(error, document)}") from None
    if isinstance(typed, Figures):
        typed._document = document
    return typed


def unique_rows(document: dict[str, Any]) -> None:
    """A ScoresInvalid naming the field and the sample when `rows` holds one sample twice (each row is one unit of
    every interval: a row twice would count twice)."""
    seen: set[Any] = set()
    rows = document.get("rows")
    for number, row in enumerate(rows if isinstance(rows, list) else []):
        key = row.get("id", row.get("sample_id")) if isinstance(row, dict) else None
        if key is not None and key in seen:
            raise ScoresInvalid(f"field 'rows' (row {number}): sample {key!r} a second time")
        seen.add(key)
