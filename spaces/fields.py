"""Limits on the text that visitors type (annotator ids, filters, the viewer's search; their values in the Spaces'
one table, `metric.space_limits`): checked in the app and again in the store."""

from __future__ import annotations

import unicodedata

from longform_eval.common.errors import LongformEvalError
from longform_eval.common.plurals import counted
from longform_eval.metric.space_limits import limit_of

MAX_ID_LENGTH = limit_of("id")  # annotator ids, session ids, comparison tokens
MAX_FILTER_LENGTH = limit_of("filter")  # the subcategory filter
MAX_SEARCH_LENGTH = limit_of("search")  # the viewer's search text
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
        raise FieldError(f"{what} is too long ({counted(len(value), 'character', spec=',')}; at most {limit})")
    return value
