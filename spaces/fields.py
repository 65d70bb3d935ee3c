"""Limits on the text that visitors type (annotator ids, filters): checked in the app and again in the store."""

from __future__ import annotations

import unicodedata

from longform_eval.common.errors import LongformEvalError

MAX_ID_LENGTH = 64  # annotator ids, session ids, comparison tokens
MAX_FILTER_LENGTH = 64  # the subcategory filter (the longest HelloBench subcategory has 22 characters)
LINE_BREAKS = "\u2028\u2029"  # Unicode's line and paragraph separators (category Z, not C)


class FieldError(LongformEvalError, ValueError):
    """A typed value the app refuses; the message is fit to show in the UI."""


def check_id(value: str, what: str = "id", limit: int = MAX_ID_LENGTH) -> str:
    """`value` unchanged if it is a non-empty id of at most `limit` characters without control characters.

    Raises:
        FieldError: naming `what`, the limit and the length (never echoing the value, which may be huge).
    """
    check_text(value, what, limit)
    if not value:
        raise FieldError(f"{what} is empty")
    if any(unicodedata.category(c).startswith("C") or c in LINE_BREAKS for c in value):
        raise FieldError(f"{what} contains control characters (tabs, line breaks, invisible format characters)")
    return value


def check_text(value: str, what: str = "text", limit: int = MAX_FILTER_LENGTH) -> str:
    """`value` unchanged if it is a string of at most `limit` characters."""
    if not isinstance(value, str):
        raise FieldError(f"{what} must be text, not {type(value).__name__}")
    if len(value) > limit:
        raise FieldError(f"{what} is too long ({len(value):,} characters; at most {limit})")
    return value
