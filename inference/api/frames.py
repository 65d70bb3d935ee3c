"""DataFrames of runs for notebooks: `RunResult.to_pandas(level)` and `Comparisons.to_pandas()`.

Read from what the run folder holds (scores.json and, for `rows`, the run's current judgements); nothing is
recomputed or written. pandas is imported here, on first use."""

from __future__ import annotations

import typing
from collections import defaultdict
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from ..benchmarks import Benchmark
from ..benchmarks.layouts import Figure, Interval, field_value
from ..benchmarks.run_scores import RunScores
from ..report.markdown import benchmark_of
from ..report.scores_file import scores_if_scored
from ..runner import Run
from .scored import is_number
from .settings import refused

if TYPE_CHECKING:
    import pandas


LEVELS = ("figures", "tasks", "rows")
RUN_COLUMNS = ("run", "benchmark")
FIGURE_COLUMNS = (*RUN_COLUMNS, "figure", "value", "low", "high", "n", "headline")
TASK_COLUMNS = (*RUN_COLUMNS, "group", "name", "figure", "value", "low", "high", "n")
ROW_COLUMNS = (
    *RUN_COLUMNS,
    "id",
    "task",
    "subcategory",
    "score",
    "words",
    "verdict",
    "completion",
    "unscored_reason",
    "judgements",
)
COMPARISON_COLUMNS = (
    "benchmark",
    "a",
    "b",
    "figure",
    "difference",
    "low",
    "high",
    "p",
    "distinguishable",
    "units",
    "paired",
    "a_folder",
    "b_folder",
)
UNIT_RECORDS = ("rows", "battles")  # where scores.json keeps its per-sample records
WORD_FIELDS = ("words", "length")


def pandas_module() -> Any:
    try:
        import pandas
    except ImportError:  # pragma: no cover - pandas comes with `datasets`
        raise ImportError("to_pandas needs pandas: pip install pandas") from None
    return pandas


def frame(records: list[dict[str, Any]], columns: tuple[str, ...]) -> pandas.DataFrame:
    """A DataFrame with `columns` first (there even when no record is), then any other field of the records."""
    extra = list(dict.fromkeys(key for record in records for key in record if key not in columns))
    found = pandas_module().DataFrame(records, columns=[*columns, *extra])
    return found.astype({"n": "Int64"}) if "n" in columns else found  # a count, missing where no interval says it


def run_frame(result: Any, level: str) -> pandas.DataFrame:
    if level not in LEVELS:
        raise refused("level", f"expected one of {', '.join(LEVELS)}", repr(level))
    scores = scores_if_scored(result.folder)
    if level == "figures":
        return frame(figure_records(result, scores), FIGURE_COLUMNS)
    if level == "tasks":
        return frame(group_records(result, scores), TASK_COLUMNS)
    return frame(row_records(result, scores), ROW_COLUMNS)


def identity(result: Any) -> dict[str, Any]:
    return {"run": result.name, "benchmark": result.benchmark}


def interval_fields(interval: Interval | None, n: Any = None) -> dict[str, Any]:
    """low, high and n of an interval of scores.json (None where there is none; n: the units, else `n`)."""
    if interval is None:
        return {"low": None, "high": None, "n": n}
    return {"low": interval.low, "high": interval.high, "n": interval.n}


# ----- figures ------------------------------------------------------------------------------------------------------
def figure_records(result: Any, scores: RunScores | None) -> list[dict[str, Any]]:
    """One record per figure of `result.scores`, the headline first, with its interval where scores.json has one."""
    intervals = scores.intervals if scores is not None else {}
    names = sorted(result.scores, key=lambda name: name != result.headline)
    return [
        identity(result)
        | {"figure": name, "value": result.scores[name]}
        | interval_fields(intervals.get(name))
        | {"headline": name == result.headline}
        for name in names
    ]


# ----- tasks and other groups ---------------------------------------------------------------------------------------
def group_records(result: Any, scores: RunScores | None) -> list[dict[str, Any]]:
    """One record per figure of a group (task, subcategory, scenario, language, ...): the figures of `intervals` that
    sit in a group (`Benchmark.figure_path`), then every figure of the groups the benchmark's layout declares."""
    if scores is None:
        return []
    benchmark = benchmark_of(scores)
    found: dict[tuple[str, str, str], dict[str, Any]] = {}
    for name, interval in scores.intervals.items():
        path = benchmark.figure_path(name)
        if len(path) == 3:
            group, member, figure = path
            value = benchmark.figure_value(scores.figures, name)
            found[path] = {"value": value} | interval_fields(interval, group_size(scores.figures, group, member))
    for (group, member), part, fields in layout_groups(scores.figures, benchmark):
        for figure in fields:
            value = field_value(part, figure)
            if (group, member, figure) not in found and value is not None:
                own = (field_value(part, "intervals") or {}).get(figure)
                found[(group, member, figure)] = {"value": value} | interval_fields(own, group_size_of(part))
    return [
        identity(result) | {"group": group, "name": member, "figure": figure} | fields
        for (group, member, figure), fields in found.items()
        if fields["value"] is not None
    ]


def group_size(figures: BaseModel, group: str, member: str) -> int | None:
    part = (field_value(figures, group) or {}).get(member)
    return group_size_of(part) if isinstance(part, BaseModel) else None


def group_size_of(part: BaseModel) -> int | None:
    for key in ("n_scored", "n", "n_items"):
        if isinstance(field_value(part, key), int):
            return field_value(part, key)
    return None


def layout_groups(figures: BaseModel, benchmark: Benchmark) -> list[tuple[tuple[str, str], BaseModel, list[str]]]:
    """((group, member), the member's figures, its figure names) for each group of figures scores.json holds, as the
    benchmark's layout declares them: `{group: {member: part}}`, or `{field: {member: part}}` inside a group."""
    layout = benchmark.scores_layout
    if layout is None:
        return []
    found = []
    for key, field in layout.model_fields.items():
        held = field_value(figures, key)
        if not isinstance(held, dict):
            continue
        part, nested = group_part(field.annotation)
        if part is None:
            continue
        fields = [name for name, declared in part.model_fields.items() if declared.annotation == Figure]
        if nested:
            members = [(f, m, v) for f, inner in held.items() if isinstance(inner, dict) for m, v in inner.items()]
        else:
            members = [(key, m, v) for m, v in held.items()]
        found += [((group, member), value, fields) for group, member, value in members if isinstance(value, BaseModel)]
    return found


def group_part(annotation: Any) -> tuple[type[BaseModel] | None, bool]:
    """(the part model, nested) of `dict[str, Part]` (nested False) or `dict[str, dict[str, Part]]` (True), where Part
    declares figures; (None, False) for anything else."""
    if typing.get_origin(annotation) is not dict:
        return None, False
    inner = typing.get_args(annotation)[1]
    nested = typing.get_origin(inner) is dict
    part = typing.get_args(inner)[1] if nested else inner
    declares = isinstance(part, type) and issubclass(part, BaseModel)
    if declares and any(declared.annotation == Figure for declared in part.model_fields.values()):
        return part, nested
    return None, False


# ----- rows ---------------------------------------------------------------------------------------------------------
def row_records(result: Any, scores: RunScores | None) -> list[dict[str, Any]]:
    """One record per evaluated sample: scores.json's per-sample record (its score, words and other fields), the
    sample's task and subgroup from the dataset row, and the run's current judgements of it."""
    kept = [field_value(scores.figures, key) for key in UNIT_RECORDS] if scores is not None else []
    units = [as_record(unit) for unit in next((found for found in kept if found), [])]
    if not units:
        return []
    run = Run.open(result.folder, read_only=True)
    benchmark = run.benchmark
    judged: dict[str, list[Any]] = defaultdict(list)
    for judgement in run.current_judgements().values():
        judged[judgement.sample_id].append(judgement)
    subgroup = benchmark.subgroup_fields[0] if benchmark.subgroup_fields else None
    records = []
    for unit in units:
        row = run.by_id.get(unit["id"], {})
        shown = {"id", subgroup, score_field(unit, benchmark), next((k for k in WORD_FIELDS if k in unit), None)}
        records.append(
            identity(result)
            | {
                "id": unit["id"],
                "task": row.get(benchmark.group_field),
                "subcategory": unit.get(subgroup) or row.get(subgroup) if subgroup else None,
                "score": row_score(unit, benchmark),
                "words": next((unit[key] for key in WORD_FIELDS if is_number(unit.get(key))), None),
            }
            | verdict_fields(judged.get(unit["id"], []))
            | {key: value for key, value in unit.items() if key not in shown}
        )
    return records


def as_record(unit: Any) -> dict[str, Any]:
    """A per-sample record of the figures as its fields (those scores.json holds)."""
    return unit.model_dump(exclude_unset=True) if isinstance(unit, BaseModel) else dict(unit)


def score_field(unit: dict[str, Any], benchmark: Benchmark) -> str | None:
    """The field of a sample's score: the benchmark's per-sample score column where the record has it, else its
    first figure (None: no field is one)."""
    if benchmark.judge_noise_column in unit:
        return benchmark.judge_noise_column
    return next((key for key, value in unit.items() if isinstance(value, float)), None)


def row_score(unit: dict[str, Any], benchmark: Benchmark) -> float | None:
    field = score_field(unit, benchmark)
    return None if field is None else unit[field]


def verdict_fields(judgements: list[Any]) -> dict[str, Any]:
    """The judge's parsed verdict and raw completion: as they are for one judgement, by judgement key for several; the
    unscored reasons joined; the number of judgements."""
    if not judgements:
        return {"verdict": None, "completion": None, "unscored_reason": None, "judgements": 0}
    reasons = [j.unscored_reason for j in judgements if j.unscored_reason]
    if len(judgements) == 1:
        verdict, completion = judgements[0].verdict, judgements[0].completion
    else:
        verdict = {j.key: j.verdict for j in judgements}
        completion = {j.key: j.completion for j in judgements}
    reason = "; ".join(dict.fromkeys(reasons)) or None
    return {"verdict": verdict, "completion": completion, "unscored_reason": reason, "judgements": len(judgements)}


# ----- comparisons --------------------------------------------------------------------------------------------------
def comparison_frame(comparisons: Any) -> pandas.DataFrame:
    """One row per pair of runs and figure: a, b (the runs' display names), the difference a - b, its interval, p,
    whether it is distinguishable from 0, and the run folders."""
    records = [
        {
            "benchmark": pair.benchmark,
            "a": pair.a_name,
            "b": pair.b_name,
            "figure": pair.figure,
            "difference": pair.difference,
            "low": pair.interval[0] if pair.interval else None,
            "high": pair.interval[1] if pair.interval else None,
            "p": pair.p_value,
            "distinguishable": pair.distinguishable,
            "units": pair.units,
            "paired": pair.paired,
            "a_folder": pair.a,
            "b_folder": pair.b,
        }
        for pair in comparisons
    ]
    return frame(records, COMPARISON_COLUMNS)
