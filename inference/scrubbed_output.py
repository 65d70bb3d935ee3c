"""Every line a command prints passes `secret_values.scrub`, then `shown.harmless` (control characters escaped): while
`scrubbed_output()` holds, stdout and stderr are wrapped (print and warnings write through them), and every log
record is scrubbed as it is made, whatever stream its handler holds (huggingface_hub's handler keeps the stderr it
found at import). A character the stream cannot encode (a lone surrogate in a model's reply; non-ASCII text on an
ASCII console) is printed as its escape, never raising. Rich draws through `RenderedStream` (secrets masked, its own
escape codes kept), from text made harmless before it is drawn.
"""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TextIO

from rich.console import Console

from longform_eval.common.shown import harmless, harmless_line

from .secret_values import scrub, writable


def scrubbed_text(text: str, keep_return: bool = False) -> str:
    """`text` as it may be shown: the secrets in use masked first (before any cut or wrap could split a key and
    escape the scrub), then control characters escaped (`shown.harmless`)."""
    return harmless(scrub(text), keep_return=keep_return)


def scrubbed_line(text: str) -> str:
    """`scrubbed_text` on one line (line breaks escaped too): a table cell, a label, a progress description."""
    return harmless_line(scrub(text))


class ScrubbedStream:
    """A text stream whose writes are scrubbed; everything else (flush, isatty, fileno, encoding) is the stream's."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        shown = writable(scrubbed_text(text, keep_return=True))  # ESC printed as `\u001b`, never acted on
        try:
            self.stream.write(shown)
        except UnicodeEncodeError:  # a console that is not UTF-8: what it cannot show, escaped
            encoding = getattr(self.stream, "encoding", None) or "ascii"
            self.stream.write(shown.encode(encoding, "backslashreplace").decode(encoding))
        return len(text)

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


class RenderedStream:
    """Where rich draws (progress bars, the leaderboard table): the stream `sys.stdout` or `sys.stderr` is at each
    write, under any ScrubbedStream, the secrets masked but rich's own escape codes (colour, cursor moves) kept.
    What rich is given to draw is made harmless first (`shown.harmless_line`), so the only escapes are rich's."""

    def __init__(self, name: str) -> None:
        self.name = name

    @property
    def stream(self) -> TextIO:
        """The terminal's stream: under any ScrubbedStream and any proxy rich's live display put in its place."""
        stream = getattr(sys, self.name)
        while True:
            inner = getattr(stream, "rich_proxied_file", None) or unscrubbed(stream)
            if inner is stream:
                return stream
            stream = inner

    def write(self, text: str) -> int:
        self.stream.write(writable(scrub(text)))
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


class HarmlessConsole(Console):
    """A rich console drawing to a RenderedStream: every text it is given to print is scrubbed of the secrets in use
    and made harmless first (`shown.harmless`), so that the only escape codes it writes are rich's own."""

    def __init__(self, stream: str = "stdout", **options: Any) -> None:
        super().__init__(file=RenderedStream(stream), **options)

    def print(self, *objects: Any, **options: Any) -> None:
        super().print(*(scrubbed_text(o) if isinstance(o, str) else o for o in objects), **options)


def unscrubbed(stream: TextIO | ScrubbedStream) -> TextIO:
    """The stream under a ScrubbedStream (what `--debug` prints its traceback to, unmasked as it says)."""
    return stream.stream if isinstance(stream, ScrubbedStream) else stream


def scrubbing_records(make_record: Callable[..., logging.LogRecord]) -> Callable[..., logging.LogRecord]:
    """A log-record factory that makes records with `make_record`, their message formatted and scrubbed."""

    def make(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = make_record(*args, **kwargs)
        with contextlib.suppress(Exception):  # a message that does not format is logging's to report, as before
            record.msg, record.args = writable(scrubbed_text(record.getMessage())), None
        return record

    return make


@contextlib.contextmanager
def scrubbed_output() -> Iterator[None]:
    """Scrub what is printed and logged until the block ends; then the streams and the record factory are put back."""
    stdout, stderr, make_record = sys.stdout, sys.stderr, logging.getLogRecordFactory()
    sys.stdout, sys.stderr = ScrubbedStream(stdout), ScrubbedStream(stderr)
    logging.setLogRecordFactory(scrubbing_records(make_record))
    try:
        yield
    finally:
        sys.stdout, sys.stderr = stdout, stderr
        logging.setLogRecordFactory(make_record)


__all__ = ["HarmlessConsole", "RenderedStream", "ScrubbedStream", "scrubbed_output", "unscrubbed"]
