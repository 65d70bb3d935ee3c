"""TencentLLMEval: real-world questions (`en`, `zh`), the model's answers judged against a baseline's.

The baseline is the dataset's reference answers (default) or a run folder of this config. Rows are identified by
prompt id; a repeated id gets `~2`, `~3` in sheet order. English labels are normalised to the task tree's spelling:
the three names of the professional area ("Field Application", "Professional field") become "Professional Field",
and task names that differ only in case take the most common spelling of their area.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from pydantic import Field

from longform_eval.dataset_builder.tencentllmeval import LANGUAGES

from .baseline import REFERENCE
from .common import PairwiseArgs, PairwiseBenchmark

REQUIRED_FIELDS = ("prompt_id", "area", "task", "question")
AREA_ALIASES = {"Field Application": "Professional Field", "Professional field": "Professional Field"}


class TencentLLMEvalArgs(PairwiseArgs):
    baseline: str | None = Field(REFERENCE, description="'reference' (default) or a tencentllmeval run folder")
    area: str | None = Field(None, description="keep only this area (level 1 of the task tree)")
    task: str | None = Field(None, description="keep only this task (level 2 of the task tree)")


class TencentLLMEval(PairwiseBenchmark):
    name = "tencentllmeval"
    configs = tuple(LANGUAGES)
    default_config = "en"
    Args = TencentLLMEvalArgs
    group_field = "area"
    subgroup_fields = ("task",)
    text_field = "question"
    reference_field = "reference_answer"
    baseline_benchmarks = ("tencentllmeval",)

    def prepare_rows(self, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        check_rows(rows, f"{self.name}:{self.config}")
        rows = normalised_tasks([{**row, "area": AREA_ALIASES.get(row["area"], row["area"])} for row in rows])
        rows = with_ids(rows)
        for field in ("area", "task"):
            rows = only(rows, field, getattr(self.args, field), f"{self.name}:{self.config}")
        return rows


def check_rows(rows: list[dict[str, Any]], where: str) -> None:
    """Every row has a prompt id, an area, a task and a question as text (the reference answer may be missing)."""
    for number, row in enumerate(rows, start=1):
        for field in REQUIRED_FIELDS:
            if not isinstance(row.get(field), str) or not row[field].strip():
                raise ValueError(f"{where}: row {number}: field {field!r} is missing or empty ({row.get(field)!r:.40})")


def with_ids(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    seen: Counter[str] = Counter()
    identified = []
    for row in rows:
        seen[row["prompt_id"]] += 1
        count = seen[row["prompt_id"]]
        identified.append({**row, "id": row["prompt_id"] if count == 1 else f"{row['prompt_id']}~{count}"})
    return identified


def normalised_tasks(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Task names that differ only in case, within one area, take the area's most common spelling."""
    spellings: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    for row in rows:
        spellings[(row["area"], row["task"].casefold())][row["task"]] += 1
    chosen = {key: counts.most_common(1)[0][0] for key, counts in spellings.items()}
    return [{**row, "task": chosen[(row["area"], row["task"].casefold())]} for row in rows]


def only(rows: list[dict[str, Any]], field: str, value: str | None, where: str) -> list[dict[str, Any]]:
    """The rows whose `field` is `value` (case-insensitive); a value no row has is an error listing the values."""
    if value is None:
        return rows
    kept = [row for row in rows if row[field].casefold() == value.casefold()]
    if not kept:
        known = sorted({row[field] for row in rows})
        raise ValueError(f"{where}: no row has {field} {value!r}; the {field}s are: {', '.join(known)}")
    return kept
