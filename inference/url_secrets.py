"""URLs can carry secrets (`http://user:pass@host`, `?token=...`): find them, and mask them in any text.

Whatever leaves the process from a backend (run-folder files, printed messages, server errors that echo a URL)
goes through `secret_values.scrub`, which masks URLs with `mask_url_secrets`; an option that would be written to a
run folder is refused when `url_secret_parts` finds any.
"""

from __future__ import annotations

import re

MASK = "***"
SCHEME = r"[A-Za-z][A-Za-z0-9+.-]*://"
CHARS, LAST = r"[^\s'\"<>`]", r"[^\s'\"<>`.,:;!?)\]}]"  # a URL's last character is not the sentence's punctuation
URL = re.compile(
    rf"{SCHEME}{CHARS}*{LAST}"  # an absolute URL
    rf"|(?<![\w/.:\]-])/[^\s'\"<>`?#]*\?{CHARS}*{LAST}"  # a path with a query, as a server echoes it
)
PARTS = re.compile(rf"^(?:(?P<scheme>{SCHEME})(?P<authority>[^/?#]*))?(?P<path>[^?#]*)(?P<tail>.*)$", re.S)
PARAMETER = re.compile(r"(?P<sep>[?#&;])(?P<name>[^?#&;=]*)(?P<value>=?[^?#&;]*)")


def mask_url(url: str) -> str:
    """`http://***@host/v1?token=***`: the userinfo, and every query or fragment value, masked."""
    parts = PARTS.match(url)
    authority = parts["authority"] or ""
    if "@" in authority:
        authority = f"{MASK}@{authority.rpartition('@')[2]}"
    return (parts["scheme"] or "") + authority + parts["path"] + PARAMETER.sub(masked_parameter, parts["tail"])


def masked_parameter(found: re.Match[str]) -> str:
    """`&name=value` -> `&name=***`; a bare `?value` (no name) -> `?***`."""
    if found["value"]:
        return f"{found['sep']}{found['name']}={MASK}"
    return f"{found['sep']}{MASK}" if found["name"] else found["sep"]


def mask_url_secrets(text: str) -> str:
    """The text with every URL in it masked (see `mask_url`); text without a URL is returned unchanged."""
    return URL.sub(lambda found: mask_url(found.group()), text)


def url_secret_parts(text: str) -> list[str]:
    """The parts that can carry a secret (userinfo, query, fragment) of the absolute URLs in `text`, in words."""
    found: list[str] = []
    for url in URL.findall(text):
        parts = PARTS.match(url)
        if parts["scheme"] is None:
            continue  # a path such as a file name, whose `?` is no query
        present = {
            "a user name or password": "@" in (parts["authority"] or ""),
            "a query string": parts["tail"].startswith("?"),
            "a fragment": "#" in parts["tail"],
        }
        found.extend(kind for kind, there in present.items() if there and kind not in found)
    return found


__all__ = ["mask_url", "mask_url_secrets", "url_secret_parts"]
