"""What the sample viewer (`longform-eval view`) shows of run folders: each row's prompt, the model's answer, the
judge's verdicts (checklist by checklist where the row has checklists) with the raw judge completions, and the row's
score; and the rows a user picks from them (filter by group and subgroup, free-text search, sort by score).

Everything is read through the runner's own readers, read-only (`Run.open(folder, read_only=True)`: no lock, nothing
written), and through the benchmark plug-in: the prompt is the row's `text_field`, the group and subgroup its
`group_field` and `subgroup_fields`, the row score its `judge_noise_column` of `unit_table(scores.json)`. Nothing here
branches on a benchmark's name, and nothing here renders: model and judge text stays as it was written (the UI shows
it through `safe_markdown`). Runs are named by model and benchmark (`run_names.model_name` of the config's labels),
never by a folder.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from longform_eval.inference.benchmarks.base import Benchmark
from longform_eval.inference.benchmarks.layouts import field_value
from longform_eval.inference.benchmarks.run_scores import RunScores
from longform_eval.inference.report.scores_file import load_scores
from longform_eval.inference.runner import Run
from longform_eval.inference.runner.schema import JudgementRecord
from longform_eval.metric.helloeval.parser import decode_list

from .items import item_of
from .run_folders import UNREADABLE, run_folders
from .run_names import model_name

ORDERS = ("prompt order", "score: high to low", "score: low to high")
ALL = "all"


@dataclass(frozen=True)
class ChecklistVerdict:
    """The judge's verdict on one checklist of a row: its score (0..1), the checklist's weight and the judge's reason
    (from the raw completion, when it is a list of objects with a `reason`)."""

    number: int  # 1-based, as a reader counts them
    checklist: str
    score: float | None
    weight: float | None = None
    reason: str | None = None


@dataclass(frozen=True)
class JudgeVerdict:
    """One judge call's record: the raw completion, the parsed verdict (or why it is unscored), and the verdict
    checklist by checklist when the row has checklists and the verdict is one score per checklist."""

    key: str
    completion: str
    verdict: Any
    unscored_reason: str | None = None
    checklist: tuple[ChecklistVerdict, ...] = ()


@dataclass(frozen=True)
class ViewRow:
    """One row of a run: `answer` None when the run has not generated it (yet), `score` None when not scored."""

    sample_id: str
    group: str
    subgroup: str
    prompt: str
    answer: str | None
    score: float | None
    details: dict[str, Any]  # the row's other figures in scores.json (words, length, outcome ...)
    verdicts: tuple[JudgeVerdict, ...] = ()

    @cached_property
    def searched(self) -> str:
        """What a search looks in: the sample id, the prompt, the answer and the judge completions, lower case."""
        texts = [self.sample_id, self.prompt, self.answer or "", *(v.completion for v in self.verdicts)]
        return "\n".join(texts).lower()

    def matches(self, terms: Sequence[str]) -> bool:
        """Whether every term (lower case) occurs in what a search looks in (`searched`)."""
        return all(term in self.searched for term in terms)


@dataclass(frozen=True)
class ViewRun:
    """A run folder as the viewer shows it; `name` is unique among the runs shown (see `read_view_runs`)."""

    name: str
    model: str
    judge: str | None
    benchmark: str  # "name:config"
    score_name: str | None  # which figure of scores.json the row score is ("row_score", "s_q", "win"), None: none
    rows: tuple[ViewRow, ...]

    def row(self, sample_id: str) -> ViewRow | None:
        return next((row for row in self.rows if row.sample_id == sample_id), None)

    def groups(self) -> list[str]:
        return sorted({row.group for row in self.rows if row.group})

    def subgroups(self, group: str | None = None) -> list[str]:
        return sorted({row.subgroup for row in self.rows if row.subgroup and (not group or row.group == group)})


def row_scores(benchmark: Benchmark, scores: RunScores | None) -> tuple[str | None, dict[str, float | None]]:
    """The name of the row score and each row's value (None: not scored), through the plug-in's `unit_table`."""
    column = benchmark.judge_noise_column
    units = benchmark.unit_table(scores.figures) if scores is not None else None
    if units is None or column is None or column not in units.columns:
        return None, {}
    values = {}
    for sample_id, value in zip(units.ids, units[column], strict=True):
        number = float(value)
        values[str(sample_id)] = None if math.isnan(number) else number
    return column, values


def row_details(scores: RunScores | None) -> dict[str, dict[str, Any]]:
    """Each row's record in scores.json (`rows`, or `battles` for pairwise runs), its fields as stored, without its
    id."""
    found: dict[str, dict[str, Any]] = {}
    for name in ("rows", "battles"):
        for unit in (field_value(scores.figures, name) if scores is not None else None) or []:
            record = unit.model_dump(exclude_unset=True) if isinstance(unit, BaseModel) else unit
            if isinstance(record, dict) and "id" in record:
                found.setdefault(str(record["id"]), {k: v for k, v in record.items() if k != "id"})
    return found


def number(value: Any) -> float | None:
    try:
        found = float(value)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(found) else found


def checklist_verdicts(row: dict[str, Any], record: JudgementRecord) -> tuple[ChecklistVerdict, ...]:
    """The verdict checklist by checklist, when the row has checklists and the parsed verdict is one score for each;
    the reasons come from the raw completion when it decodes (as JSON or a Python literal, never run) to a list of
    one object per checklist."""
    checklists = [str(c) for c in row.get("checklists") or ()]
    verdict = record.verdict
    if not checklists or not isinstance(verdict, list) or len(verdict) != len(checklists):
        return ()
    weights = row.get("checklist_weights") or ()
    weights = list(weights) if len(weights) == len(checklists) else [None] * len(checklists)
    decoded = decode_list(record.completion)
    items = decoded if isinstance(decoded, list) and len(decoded) == len(checklists) else [None] * len(checklists)
    return tuple(
        ChecklistVerdict(
            n + 1,
            checklist,
            number(score),
            number(weight),
            str(item["reason"]) if isinstance(item, dict) and item.get("reason") is not None else None,
        )
        for n, (checklist, score, weight, item) in enumerate(zip(checklists, verdict, weights, items, strict=True))
    )


def judge_verdicts(row: dict[str, Any], records: Iterable[JudgementRecord]) -> tuple[JudgeVerdict, ...]:
    return tuple(
        JudgeVerdict(
            record.key,
            record.completion,
            record.verdict,
            record.unscored_reason,
            checklist_verdicts(row, record) if record.unscored_reason is None else (),
        )
        for record in sorted(records, key=lambda r: r.key)
    )


def view_run(run: Run, scores: RunScores | None, name: str | None = None) -> ViewRun:
    """`run`'s rows joined with its current answers and verdicts and `scores` (its scores.json, or None)."""
    config = run.config
    if scores is not None and (scores.model, scores.judge) != (config.model_id, judge_id(run)):
        scores = None  # scored with another model or judge than the records now current: no row scores
    score_name, scores_by_id = row_scores(run.benchmark, scores)
    details = row_details(scores)
    answers = run.responses()
    by_sample: dict[str, list[JudgementRecord]] = {}
    for record in run.current_judgements().values():
        by_sample.setdefault(record.sample_id, []).append(record)
    rows = []
    for row in run.rows:
        item = item_of(run.benchmark, row)
        sample_id = item.sample_id
        rows.append(
            ViewRow(
                sample_id,
                item.group,
                item.subgroup,
                item.question,
                answers[sample_id][0] if sample_id in answers else None,
                scores_by_id.get(sample_id),
                details.get(sample_id, {}),
                judge_verdicts(row, by_sample.get(sample_id, ())),
            )
        )
    benchmark = f"{config.benchmark}:{config.benchmark_config}"
    model = model_name(config.model_label)
    judge = model_name(config.judge_label) if config.judge_label else None
    return ViewRun(name or f"{model} · {benchmark}", model, judge, benchmark, score_name, tuple(rows))


def judge_id(run: Run) -> str | None:
    return run.config.judge.name if run.config.judge else None


def read_view_run(folder: Path) -> ViewRun:
    """The run folder `folder`, read-only (a runner may be writing it)."""
    try:
        scores = load_scores(folder)
    except (OSError, ValueError):  # not scored yet, or a damaged scores.json: the rows are shown without scores
        scores = None
    return view_run(Run.open(folder, read_only=True), scores)


def read_view_runs(paths: Iterable[Path]) -> list[ViewRun]:
    """Every readable run folder among (and below) `paths`, each under a name of its own (two runs of one model on
    one benchmark are told apart by a number); an unreadable folder is skipped with a warning."""
    runs = []
    for folder in run_folders(paths):
        try:
            runs.append(read_view_run(folder))
        except UNREADABLE as error:
            warnings.warn(f"{folder}: run folder skipped ({error})", stacklevel=2)
    return unique_names(runs)


def unique_names(runs: Sequence[ViewRun]) -> list[ViewRun]:
    seen: dict[str, int] = {}
    named = []
    for run in runs:
        seen[run.name] = seen.get(run.name, 0) + 1
        name = run.name if seen[run.name] == 1 else f"{run.name} ({seen[run.name]})"
        named.append(replace(run, name=name))
    return named


def select_rows(
    rows: Iterable[ViewRow],
    group: str | None = None,
    subgroup: str | None = None,
    query: str = "",
    order: str = ORDERS[0],
) -> list[ViewRow]:
    """The rows of `group` and `subgroup` (None or "all": any) that contain every word of `query` (any case), in
    prompt order or by score (rows without a score last, in prompt order)."""
    if order not in ORDERS:
        raise ValueError(f"order must be one of {', '.join(ORDERS)}, not {order!r}")
    terms = query.lower().split()
    found = [
        row
        for row in rows
        if group in (None, "", ALL, row.group) and subgroup in (None, "", ALL, row.subgroup) and row.matches(terms)
    ]
    if order == ORDERS[0]:
        return found
    sign = -1 if order == ORDERS[1] else 1
    return sorted(found, key=lambda row: (row.score is None, sign * (row.score or 0.0)))


def paired_row(row: ViewRow, run: ViewRun, other: ViewRun) -> ViewRow | None:
    """`other`'s row on the same prompt as `row` of `run`: same benchmark, sample id and prompt (None: not there)."""
    if other.benchmark.split(":")[0] != run.benchmark.split(":")[0]:
        return None
    found = other.row(row.sample_id)
    return found if found is not None and found.prompt == row.prompt else None
