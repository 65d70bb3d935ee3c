"""Model output shown as readable markdown, never as live HTML or script."""

from __future__ import annotations

import html
import re

# A markdown link or image whose target is not http(s), mailto or a fragment: javascript:, data:, vbscript: ...
LINK_TARGET = re.compile(r"(\]\(\s*)(?!https?://|mailto:|#)([^)\s]*)", re.IGNORECASE)
AUTOLINK = re.compile(r"<\s*(?:javascript|data|vbscript):[^>]*>", re.IGNORECASE)


def inert_markdown(text: str) -> str:
    """Escape every HTML tag (so `<script>` and `<img onerror>` show as text) and disarm unsafe link targets."""
    text = AUTOLINK.sub("(link removed)", text)
    text = html.escape(text, quote=False)
    return LINK_TARGET.sub(lambda m: m.group(1) + "#blocked-link", text)
