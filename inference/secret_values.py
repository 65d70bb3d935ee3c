"""The secrets in use, by value, and `scrub`: what every recorded or printed failure goes through.

A backend registers each secret when it reads it (an API key from the environment, the user, password and query
values of a URL from `base_url_env`), the Hub client the token of each request (`hub.client`); `scrub` then masks,
in any text, every registered value (also percent-encoded, percent-decoded, JSON-escaped, in base64 and, for a user
and password, as the base64 of an HTTP Basic header), the value of every Authorization /
Proxy-Authorization / api-key header (any scheme, registered or not), and every URL's userinfo and query
(`mask_url_secrets`). A server that echoes the request it got is scrubbed like any other text.

It is the one scrub of what leaves the process: installed on import as the hook of `longform_eval.common.outgoing`,
so every text file written whole (`common.atomic`) passes it; every record appended to a run's log passes it
(`runner.records`), every line the command line prints (`scrubbed_output`), every Hub error (`hub.client`).

A value shorter than MIN_LENGTH is not registered: masking it would mask ordinary text (a password `pw` would
hide every `pw` in a message). Such a value is still masked where it shows as what it is: in a URL's userinfo or
query, in an Authorization header, and inside the base64 of `user:password` (which is never short).
"""

from __future__ import annotations

import base64
import json
import re
import threading
from typing import Any
from urllib.parse import quote, quote_plus, unquote, unquote_plus, urlsplit

from longform_eval.common.outgoing import install_scrub

from .url_secrets import MASK, mask_url_secrets

MIN_LENGTH = 4
# A header's name may follow anything (`Proxy-`, `x-`, a line break escaped as `\r\n`); its value runs to the end
# of its line, to an escaped line break, or to its closing quote in a JSON text or a Python repr. A value already
# masked is left as it is.
HEADER = re.compile(
    r"(?i)(?P<name>authorization|api[-_]?key)\b(?P<sep>[\"']?[ \t]*+[:=][ \t]*+)"
    r"(?:(?P<quote>[\"'])(?:\\.|(?!(?P=quote))[^\r\n])*(?P=quote)|(?!\*\*\*)(?:(?!\\[rn])[^\r\n])+)"
)


class SecretValues:
    """The registered values, and one pattern that finds any of them (longest first, so that a value inside
    another one never leaves the rest of the longer one behind)."""

    def __init__(self) -> None:
        self.values: frozenset[str] = frozenset()
        self.pattern: re.Pattern[str] | None = None
        self.lock = threading.Lock()

    def add(self, values: set[str]) -> None:
        with self.lock:
            new = {value for value in values if len(value) >= MIN_LENGTH} - self.values
            if not new:
                return  # the Hub client registers its token with every request: nothing to compile again
            self.values |= new
            ordered = sorted(self.values, key=len, reverse=True)
            self.pattern = re.compile("|".join(map(re.escape, ordered)))

    def mask(self, text: str) -> str:
        pattern = self.pattern
        return pattern.sub(MASK, text) if pattern is not None else text

    def find(self, text: str) -> int | None:
        """Where the first registered value starts in `text`; None if it holds none."""
        pattern = self.pattern
        found = pattern.search(text) if pattern is not None else None
        return found.start() if found is not None else None


REGISTERED = SecretValues()


def spellings(value: str) -> set[str]:
    """A value as it may show: as given, percent-decoded, percent-encoded (as a path or as a form), each of these
    as a JSON string holds it (`"` and `\\` escaped; non-ASCII as is, or as `\\u` escapes), and in base64 (as
    given and decoded; not for a value shorter than MIN_LENGTH, whose base64 is never registered alone)."""
    decoded = unquote_plus(value)
    plain = {value, unquote(value), decoded, quote(decoded, safe=""), quote_plus(decoded, safe="")}
    escaped = {json.dumps(text, ensure_ascii=ascii)[1:-1] for text in plain for ascii in (True, False)}
    encoded = base64_spellings(value) | base64_spellings(decoded) if len(value) >= MIN_LENGTH else set()
    return plain | escaped | encoded


def base64_spellings(value: str) -> set[str]:
    """The base64 of `value`, padded and not (as a server or a Basic header may carry it)."""
    encoded = base64.b64encode(value.encode("utf-8", "backslashreplace")).decode()
    return {encoded, encoded.rstrip("=")}


def register_secret(value: str | None) -> None:
    """Mask `value` (an API key, a token) in everything `scrub` sees from now on, in this process."""
    if value:
        REGISTERED.add(spellings(value))


def register_url_secrets(url: str) -> None:
    """Register the user, password, query and fragment values of `url`, and the HTTP Basic credentials that its
    user and password become (base64 of `user:password`, decoded as httpx does before encoding)."""
    parts = urlsplit(url)
    values: set[str] = set()
    if "@" in parts.netloc:
        userinfo = parts.netloc.rpartition("@")[0]
        user, _, password = userinfo.partition(":")
        for pair in {userinfo, f"{unquote(user)}:{unquote(password)}"}:
            values |= base64_spellings(pair)
        values |= spellings(user) | spellings(password)
    for parameter in re.split(r"[&;]", parts.query) + [parts.fragment]:
        name, named, value = parameter.partition("=")
        values |= spellings(value if named else name)  # `?name=value` or a bare `?value`
    REGISTERED.add({value for value in values if value})


def masked_header(found: re.Match[str]) -> str:
    quote_mark = found["quote"] or ""
    return f"{found['name']}{found['sep']}{quote_mark}{MASK}{quote_mark}"


def scrub(text: str) -> str:
    """The text with every secret in it masked: authorization headers, URL userinfo and query values, and every
    registered value (see the module's docstring). Scrubbing twice changes nothing."""
    return REGISTERED.mask(mask_url_secrets(HEADER.sub(masked_header, text)))


def scrub_content(text: str) -> str:
    """What a file written keeps of `text`: every registered value and every authorization header masked. Unlike
    `scrub` (for messages), a URL's query is kept unless it holds a registered value: a model's answer or a vote may
    rightly hold a link with a query, and a query value of the URL a backend calls is registered when it is read."""
    return REGISTERED.mask(HEADER.sub(masked_header, text))


def scrubbed_line(text: str) -> str:
    """`text` scrubbed, then its lines joined into one (a header is masked to the end of its own line first)."""
    return " ".join(line.strip() for line in scrub(text).splitlines() if line.strip())


def find_secret(text: str) -> int | None:
    """Where the first registered secret (in any of its spellings) starts in `text`; None if it holds none."""
    return REGISTERED.find(text)


def scrubbed(value: Any) -> Any:
    """A JSON-like value (a record) with every string in it scrubbed, keys included, and made writable as UTF-8: a
    lone surrogate (valid JSON, no character) is written as its escape, `\\ud800`, never stopping the write."""
    if isinstance(value, str):
        return writable(scrub_content(value))
    if isinstance(value, dict):
        return {scrubbed(key): scrubbed(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [scrubbed(item) for item in value]
    return value


def writable(text: str) -> str:
    """`text`, its lone surrogates (which UTF-8 cannot encode) as their backslash escapes."""
    return text if is_writable(text) else text.encode("utf-8", "backslashreplace").decode("utf-8")


def is_writable(value: Any) -> bool:
    """Whether every string in a JSON-like value (keys included) can be written as UTF-8 as it is."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return False
        return True
    if isinstance(value, dict):
        return all(is_writable(key) and is_writable(item) for key, item in value.items())
    if isinstance(value, (list, tuple)):
        return all(is_writable(item) for item in value)
    return True


def escaped_fields(record: dict[str, Any]) -> list[str]:
    """The fields of a record whose text `scrubbed` writes escaped (it holds what UTF-8 cannot encode)."""
    return sorted(writable(str(name)) for name, value in record.items() if not is_writable({name: value}))


install_scrub(scrub_content)

__all__ = [
    "MIN_LENGTH",
    "escaped_fields",
    "find_secret",
    "register_secret",
    "register_url_secrets",
    "scrub",
    "scrub_content",
    "scrubbed",
    "scrubbed_line",
]
