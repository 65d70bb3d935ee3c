"""Human labels as `calibrate` reads them: one JSON object per line, checked field by field.

A pairwise label has `item_id`, `model_a`, `model_b` and `outcome` (A, B, equally_good, equally_bad, or an alias
`metric.pairwise.as_outcome` reads), in the frame shown: `model_a` was A. A checklist label has `row_id`, `model` and
`checklist_scores` (one level in [0, 1] per checklist, in the row's order). Other fields (a Space vote's `annotator`,
`judge_outcome`, `token`; an annotation's `overall_score`) are kept out of the way. A line that is neither, or whose
field is wrong, is one error naming the file, the line and the field. The file is streamed through the guarded
reader (`common.guarded`, kind LABELS) and each line parsed within `bounded_json`'s depth and integer bounds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from longform_eval.common.bounded_json import loads_json
from longform_eval.common.errors import SourceError
from longform_eval.common.guarded import LABELS, UnreadableFile, iter_lines
from longform_eval.metric.pairwise import as_outcome

PAIR_FIELDS = ("item_id", "model_a", "model_b", "outcome")
CHECKLIST_FIELDS = ("row_id", "model", "checklist_scores")


@dataclass(frozen=True)
class PairLabel:
    item_id: str
    model_a: str
    model_b: str
    outcome: str  # canonical: A, B, equally_good, equally_bad (shown frame)
    judge_outcome: str | None = None  # the Space's judge on the same comparison, when the vote has it


@dataclass(frozen=True)
class ChecklistLabel:
    row_id: str
    model: str
    checklist_scores: tuple[float, ...]


@dataclass
class HumanLabels:
    """What a source holds; `source` names it in messages and in calibrated.json."""

    source: str
    pairs: list[PairLabel] = field(default_factory=list)
    checklists: list[ChecklistLabel] = field(default_factory=list)

    def extend(self, other: HumanLabels) -> None:
        self.pairs += other.pairs
        self.checklists += other.checklists


def read_label_file(path: Path, where: str | None = None) -> HumanLabels:
    """Every label in a JSONL file (blank lines skipped). Raises SourceError naming file, line and field."""
    label = where or str(path)
    found = HumanLabels(label)
    try:
        for index, line in iter_lines(path, LABELS):
            if not line.strip():
                continue
            try:
                record = loads_json(line)
            except ValueError as error:
                raise SourceError(label, f"line {index}", None, f"not a JSON line ({error})") from None
            add_record(found, record, label, f"line {index}")
    except UnreadableFile as error:  # named as the caller names the file (a Hub path, not its cache)
        raise UnreadableFile(label, error.problem, error.row) from None
    return found


def add_record(found: HumanLabels, record: Any, where: str, number: str) -> None:
    """Check `record` and add it to `found`; `number` names it in `where` ("line 3", "vote 3")."""
    if not isinstance(record, dict):
        raise SourceError(where, number, None, "expected a JSON object")
    if "outcome" in record or "model_a" in record:
        found.pairs.append(pair_label(record, where, number))
    elif "checklist_scores" in record or "row_id" in record:
        found.checklists.append(checklist_label(record, where, number))
    else:
        raise SourceError(
            where,
            number,
            None,
            f"neither a pairwise label ({', '.join(PAIR_FIELDS)}) nor a checklist one ({', '.join(CHECKLIST_FIELDS)})",
        )


def text_field(record: dict, name: str, where: str, number: str) -> str:
    if name not in record:
        raise SourceError(where, number, name, "missing")
    value = record[name]
    if not isinstance(value, str | int) or isinstance(value, bool) or not str(value).strip():
        raise SourceError(where, number, name, f"expected a non-empty string, got {value!r:.60}")
    return str(value)


def pair_label(record: dict, where: str, number: str) -> PairLabel:
    item, a, b = (text_field(record, name, where, number) for name in PAIR_FIELDS[:3])
    if a == b:
        raise SourceError(where, number, "model_b", f"the same model as model_a ({a!r:.60})")
    outcome = outcome_field(record, "outcome", where, number)
    judged = record.get("judge_outcome")
    judge = None if judged in (None, "unscored") else outcome_field(record, "judge_outcome", where, number)
    return PairLabel(item, a, b, outcome, judge)


def outcome_field(record: dict, name: str, where: str, number: str) -> str:
    value = record.get(name)
    if value is None:
        raise SourceError(where, number, name, "missing")
    try:
        return as_outcome(value).value
    except ValueError as error:
        raise SourceError(where, number, name, str(error)) from None


def checklist_label(record: dict, where: str, number: str) -> ChecklistLabel:
    row, model = (text_field(record, name, where, number) for name in CHECKLIST_FIELDS[:2])
    scores = record.get("checklist_scores")
    if not isinstance(scores, list) or not scores:
        raise SourceError(where, number, "checklist_scores", "expected a non-empty list of levels in [0, 1]")
    for value in scores:
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
            or not 0 <= value <= 1
        ):
            raise SourceError(where, number, "checklist_scores", f"expected levels in [0, 1], got {value!r:.40}")
    return ChecklistLabel(row, model, tuple(float(v) for v in scores))


__all__ = ["ChecklistLabel", "HumanLabels", "PairLabel", "read_label_file"]
