"""Text a person sees, made harmless: control characters shown as escapes, never acted on.

A model's reply, a server's error message, a display name or a folder name may hold characters a terminal or an
editor acts on: C0 controls (ESC starts the sequences that clear a screen, set a window title or write the
clipboard; a carriage return overwrites a line), DEL, the C1 controls, the bidirectional overrides and isolates
that make text read in another order than it is stored, and the line and paragraph separators that end a line in
some readers but not in others. `harmless` writes each as `\\uXXXX`: visible, and inside a JSON string the same
character again when the string is read back. `label_problem` says why a text is no display name.
"""

from __future__ import annotations

import html
import re
from typing import Any

UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2028\u2029\u2066-\u2069\ufeff\ufff9-\ufffb]"
)
UNSAFE_BUT_RETURN = re.compile(UNSAFE.pattern.replace("\x0b-\x1f", "\x0b\x0c\x0e-\x1f"))
LINE_CONTROLS = re.compile("[\t\n]")
LABEL_LIMIT = 200  # characters: a display name is read in a table cell
# OWASP's CSV injection defence: a text cell starting with one of these is read as a formula by spreadsheets.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def escape_of(character: str) -> str:
    return f"\\u{ord(character):04x}"


def harmless(text: str, keep_return: bool = False) -> str:
    """`text` with every character of UNSAFE (all but tab and line feed) written as its `\\uXXXX` escape;
    `keep_return`: a carriage return kept (a terminal's progress bars redraw their line with it)."""
    pattern = UNSAFE_BUT_RETURN if keep_return else UNSAFE
    return pattern.sub(lambda found: escape_of(found.group()), text)


def harmless_line(text: str) -> str:
    """`harmless(text)` on one line: a tab or a line feed is escaped too (a table cell, a label, a file name)."""
    return LINE_CONTROLS.sub(lambda found: escape_of(found.group()), harmless(text))


def has_controls(text: str) -> bool:
    """Whether `text` holds a character `harmless_line` would escape."""
    return bool(UNSAFE.search(text) or LINE_CONTROLS.search(text))


def csv_cell(value: Any) -> Any:
    """A text cell that a spreadsheet would run as a formula (`=HYPERLINK(...)`, `@SUM(...)`) gets a leading `'`;
    its control characters escaped. Numbers are left as they are."""
    if not isinstance(value, str):
        return value
    return "'" + harmless(value) if value.startswith(FORMULA_STARTS) else harmless(value)


def markdown_cell(text: object) -> str:
    """Text for a Markdown table cell or heading: one line, control characters escaped, HTML escaped (a name
    `<img src=...>` is shown, not rendered), `|` escaped (it would end the cell)."""
    return html.escape(harmless_line(str(text)), quote=False).replace("|", "\\|")


def label_problem(value: str) -> str | None:
    """Why `value` is no display name (one line of text people read in tables), or None."""
    if not value.strip():
        return "expected a one-line label that is not empty"
    if has_controls(value):
        found = next(c for c in value if has_controls(c))
        return (
            f"expected a one-line label without control characters (line breaks, escapes, bidirectional "
            f"overrides), found {escape_of(found)}"
        )
    if len(value) > LABEL_LIMIT:
        return f"expected a label of at most {LABEL_LIMIT} characters, got {len(value)}"
    return None


__all__ = ["csv_cell", "harmless", "harmless_line", "has_controls", "label_problem", "markdown_cell"]
