"""Every line a command prints passes `secret_values.scrub`: while `scrubbed_output()` holds, stdout and stderr are
wrapped (print, warnings, rich's progress and console all write through them), and every log record is scrubbed as
it is made, whatever stream its handler holds (huggingface_hub's handler keeps the stderr it found at import). A
character the stream cannot encode (a lone surrogate in a model's reply; non-ASCII text on an ASCII console) is
printed as its escape, never raising.
"""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TextIO

from .secret_values import scrub, writable


class ScrubbedStream:
    """A text stream whose writes are scrubbed; everything else (flush, isatty, fileno, encoding) is the stream's."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        shown = writable(scrub(text))
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


def unscrubbed(stream: TextIO | ScrubbedStream) -> TextIO:
    """The stream under a ScrubbedStream (what `--debug` prints its traceback to, unmasked as it says)."""
    return stream.stream if isinstance(stream, ScrubbedStream) else stream


def scrubbing_records(make_record: Callable[..., logging.LogRecord]) -> Callable[..., logging.LogRecord]:
    """A log-record factory that makes records with `make_record`, their message formatted and scrubbed."""

    def make(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = make_record(*args, **kwargs)
        with contextlib.suppress(Exception):  # a message that does not format is logging's to report, as before
            record.msg, record.args = writable(scrub(record.getMessage())), None
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


__all__ = ["ScrubbedStream", "scrubbed_output", "unscrubbed"]
