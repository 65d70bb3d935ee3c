"""A vote and an annotation as the store keeps them and as a journal holds them (one JSON object each), with the
checks every one of them passes before it is stored: from the app, from an import or from a journal's line."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from typing import Any

from longform_eval.spaces.fields import FieldError, check_id, check_text

OUTCOMES = ("A", "B", "equally_good", "equally_bad")
VOTE_TEXT = ("annotator", "session", "item_id", "model_a", "model_b", "order_shown", "outcome")
ANNOTATION_FIELDS = ("annotator", "created", "row_id", "subcategory", "model", "checklist_scores", "overall_score")
MAX_TEXT_LENGTH = 10_000  # an item id, subcategory or model name in an annotation imported from a journal
# What tells two records apart: a vote by its comparison token, a vote without one (schema 1) by TOKENLESS_KEY, an
# annotation by ANNOTATION_KEY.
TOKENLESS_KEY = ("annotator", "session", "created", "item_id", "model_a", "model_b")
ANNOTATION_KEY = ("annotator", "created", "row_id", "model")


@dataclass(frozen=True)
class Vote:
    """One human comparison. `model_a` was shown on the left (as A); `outcome` is in the shown frame."""

    annotator: str
    session: str
    item_id: str
    model_a: str
    model_b: str
    order_shown: str
    outcome: str
    judge_outcome: str | None = None
    judge_flipped: bool | None = None
    created: float = 0.0
    token: str | None = None  # the comparison shown; at most one vote per token (None: a vote from schema 1)


def vote_row(vote: Vote) -> dict[str, Any]:
    """The vote as the columns of its row, after the checks the store makes on every vote."""
    if vote.outcome not in OUTCOMES:
        raise ValueError(f"unknown outcome {vote.outcome!r}")
    check_id(vote.annotator, "annotator id")
    check_id(vote.session, "session id")
    if vote.token is not None:
        check_id(vote.token, "comparison token")
    row = asdict(vote)
    row["created"] = vote.created or time.time()
    row["judge_flipped"] = None if vote.judge_flipped is None else int(vote.judge_flipped)
    return row


def vote_record(row: dict[str, Any]) -> dict[str, Any]:
    """A stored vote's row as its journal record: the fields of `Vote`, `created` filled in."""
    return row | {"judge_flipped": None if row["judge_flipped"] is None else bool(row["judge_flipped"])}


def vote_of_record(record: Any) -> Vote:
    """The vote in a journal record, its fields checked for kind (`vote_row` checks their values).

    Raises:
        FieldError: not an object of the fields of `Vote`, or a field of the wrong kind.
    """
    fields = Vote.__dataclass_fields__
    if not isinstance(record, dict) or set(record) - set(fields) or set(VOTE_TEXT) - set(record):
        raise FieldError(f"a vote is an object with the fields {', '.join(fields)}")
    kinds = {name: (str,) for name in VOTE_TEXT} | {"created": (int, float), "judge_flipped": (bool, type(None))}
    kinds |= {"judge_outcome": (str, type(None)), "token": (str, type(None))}
    for name, value in record.items():
        if not isinstance(value, kinds[name]) or (name == "created" and isinstance(value, bool)):
            raise FieldError(f"vote field {name} must be {' or '.join(k.__name__ for k in kinds[name])}")
    return Vote(**record)


def annotation_row(record: Any) -> dict[str, Any]:
    """An annotation's columns, checked: the annotator id as in `check_id`, numbers where the schema has them.

    Raises:
        FieldError: not an object of the columns `ANNOTATION_FIELDS`, or a field of the wrong kind.
    """
    if not isinstance(record, dict) or set(record) != set(ANNOTATION_FIELDS):
        raise FieldError(f"an annotation is an object with the fields {', '.join(ANNOTATION_FIELDS)}")
    check_id(record["annotator"], "annotator id")
    for name in ("row_id", "subcategory", "model"):
        check_text(record[name], f"annotation field {name}", MAX_TEXT_LENGTH)
    scores = record["checklist_scores"]
    if not all(map(is_number, (record["created"], record["overall_score"]))) or not (
        isinstance(scores, list) and all(map(is_number, scores))
    ):
        raise FieldError("annotation fields created, overall_score and checklist_scores must be numbers")
    return {name: record[name] for name in ANNOTATION_FIELDS}


def vote_identity(row: dict[str, Any]) -> tuple:
    """What tells two vote rows apart: the comparison token, or (a vote without one) the fields of TOKENLESS_KEY."""
    return ("token", row["token"]) if row["token"] is not None else key(row, TOKENLESS_KEY)


def key(row: dict[str, Any], names: tuple[str, ...]) -> tuple:
    return tuple(row[name] for name in names)


def is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
