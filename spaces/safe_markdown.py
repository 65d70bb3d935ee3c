"""Text from run folders and the vote store, made safe to show in gradio's markdown.

Two kinds of text reach a markdown component (gr.Markdown, a "markdown" Dataframe column):

- model output and questions (`inert_markdown`): they are markdown and stay readable as such, but every HTML tag
  shows as text, every image shows as its own markdown (`![alt](address)`, the address a link that is followed only
  when clicked: no image is ever drawn, data: URLs included, so a page fetches nothing an answer names) and a link
  may only lead to http(s), mailto or a fragment;
- names and every other short text (`inert_text`): model names, sample ids, task and subcategory names, annotator
  ids, run folders, judge names and verdict reasons show literally, character for character: no HTML, no link, no
  emphasis, no code span, no heading or list, no line break, and no `|` that could split a table row.

Gradio shows Dropdown choices, Radio labels and "str" Dataframe cells as plain text (the browser's textContent),
so those take the raw string: escaping it there would show `&lt;` to the reader.
"""

from __future__ import annotations

import html
import re
from typing import Any

# A markdown link or image whose target is not http(s), mailto or a fragment: javascript:, data:, vbscript: ...
LINK_TARGET = re.compile(r"(\]\(\s*)(?!https?://|mailto:|#)([^)\s]*)", re.IGNORECASE)
AUTOLINK = re.compile(r"<\s*(?:javascript|data|vbscript):[^>]*>", re.IGNORECASE)
# Markdown draws an image only from `![`: inline (`![alt](address)`: the text holds `](`) or by reference (`![alt][r]`,
# `![r]`: it holds a definition `[r]: address`, with `]:`). Raw HTML is escaped, so there is no other way.
IMAGE_OPENER = "!["
IMAGE_SIGNS = ("](", "]:")
# Inline markdown syntax: escapes, code spans, emphasis, strikethrough, links and images, table cells, LaTeX.
MARKDOWN_PUNCTUATION = re.compile(r"([\\`*_~\[\]()|$])")
LINE_BREAKS = re.compile(r"[\x00-\x1f\x7f\x85\u2028\u2029]+")
# What makes a block of a line's start: a heading, a list item (`-`, `+`, `1.`), e.g. a lone "-" in a table cell.
BLOCK_START = re.compile(r"^(\d*)([-+#.])")


def inert_markdown(text: str) -> str:
    """Escape every HTML tag (so `<script>` and `<img onerror>` show as text), show every image as its text, and
    disarm unsafe link targets."""
    text = AUTOLINK.sub("(link removed)", text)
    text = html.escape(text, quote=False)
    text = LINK_TARGET.sub(lambda m: m.group(1) + "#blocked-link", text)
    return images_as_text(text)


def images_as_text(text: str) -> str:
    """`text` with no image in it: each `![` becomes `!\\[` (an escaped bracket opens neither image nor link, whatever
    precedes it), so `![b](http://host/b.png)` shows as that text, its address a link once the page autolinks it.
    A text that can hold no image (no `](`, no `]:`) is kept as it is: `vec![1, 2]` in code stays as written."""
    if IMAGE_OPENER not in text or not any(sign in text for sign in IMAGE_SIGNS):
        return text
    return text.replace(IMAGE_OPENER, "!\\[")


def inert_text(value: Any) -> str:
    """`value` as markdown that renders as exactly its characters, on one line: `<b>x</b>` shows as `<b>x</b>`,
    `[a](javascript:alert(1))` as that text (no link), `x|y` as one table cell."""
    text = LINE_BREAKS.sub(" ", str(value)).strip()  # markdown drops the spaces around a line anyway
    text = MARKDOWN_PUNCTUATION.sub(r"\\\1", html.escape(text, quote=False))
    return BLOCK_START.sub(r"\1\\\2", text)
