"""JSON from a file a user hands in, parsed within bounds: at most MAX_DEPTH levels of nesting, integers of at most
MAX_INT_DIGITS digits.

Python's parser recurses once per level (a document nested 100,000 deep is a RecursionError, and one nested 900 deep
passes it but breaks the recursive code that reads it next), and builds an integer of any length (400 digits is an
OverflowError wherever it meets a float). `loads_json` refuses both with a `JsonRefused`, a ValueError that the
callers' "not valid JSON" handling already takes. The depth is measured without recursion, level by level, and only
for a document with more than MAX_DEPTH arrays and objects (counted on the text, at C speed).
"""

from __future__ import annotations

import codecs
import json
from typing import Any

from .errors import LongformEvalError

MAX_DEPTH = 100  # the toolkit's deepest document (scores.json's intervals) is under 10 levels
MAX_INT_DIGITS = 20  # a count, a seed or a time in nanoseconds fits in 20 digits; 2**64 has 20


class JsonRefused(LongformEvalError, ValueError):
    """A JSON document nested too deeply or holding an integer too long; the caller names the file."""


def deeper_than(document: Any, depth: int) -> bool:
    """Whether arrays and objects nest more than `depth` levels in `document` (walked level by level)."""
    level = [document] if isinstance(document, dict | list) else []
    for _ in range(depth):
        level = [
            child
            for node in level
            for child in (node.values() if isinstance(node, dict) else node)
            if isinstance(child, dict | list)
        ]
        if not level:
            return False
    return True


def bounded_int(digits: str) -> int:
    length = len(digits.lstrip("-"))
    if length > MAX_INT_DIGITS:
        raise JsonRefused(f"an integer of {length} digits, more than {MAX_INT_DIGITS}")
    return int(digits)


# One decoder for every call: `json.loads` with a hook builds a new one each time (a tenth of a log line's parse).
DECODER = json.JSONDecoder(parse_int=bounded_int)


def loads_json(data: str | bytes) -> Any:
    """`json.loads` within the module's bounds: a JsonRefused for a document nested more than MAX_DEPTH deep or an
    integer longer than MAX_INT_DIGITS digits; json.JSONDecodeError, UnicodeDecodeError (bytes that are not UTF-8)
    as `json.loads` raises them."""
    if isinstance(data, bytes | bytearray):  # brackets counted on the bytes: in UTF-8 no other character holds one
        text, brackets = data.removeprefix(codecs.BOM_UTF8).decode("utf-8"), data.count(b"[") + data.count(b"{")
    elif isinstance(data, str):
        text, brackets = data, data.count("[") + data.count("{")
    else:
        raise TypeError(f"the JSON object must be str or bytes, not {type(data).__name__}")
    try:
        document = DECODER.decode(text)
    except RecursionError:
        raise too_deep() from None
    if brackets > MAX_DEPTH and deeper_than(document, MAX_DEPTH):
        raise too_deep()
    return document


def json_copy(document: Any) -> Any:
    """A deep copy of a JSON document (one `json` gives back), by JSON's own round trip: several times faster than
    `copy.deepcopy` on a scores.json."""
    return json.loads(json.dumps(document, ensure_ascii=False))


def too_deep() -> JsonRefused:
    return JsonRefused(f"nested more than {MAX_DEPTH} levels deep")


__all__ = ["MAX_DEPTH", "MAX_INT_DIGITS", "JsonRefused", "json_copy", "loads_json"]
