"""Text that leaves the process (a file written, a line printed) passes one scrub of the secrets in use.

`common` sits below the layer that knows the secrets (`inference` registers each one as a backend or the Hub client
reads it), so it holds only the hook: `inference.secret_values` installs its `scrub` here when it is imported, and
`atomic` sends every text file through `outgoing_text`. A process that never imported it read no secret: its text
passes unchanged.
"""

from __future__ import annotations

from collections.abc import Callable


def unchanged(text: str) -> str:
    return text


_scrub: Callable[[str], str] = unchanged


def install_scrub(scrub: Callable[[str], str]) -> None:
    """Make `scrub` what every text file written through `atomic` passes (one per process: the last one wins)."""
    global _scrub
    _scrub = scrub


def outgoing_text(text: str) -> str:
    """`text` with the secrets in use masked (the installed scrub)."""
    return _scrub(text)


def encoded(text: str) -> bytes:
    """`text` as UTF-8, a lone surrogate (which UTF-8 cannot encode) written as its escape, `\\ud800`."""
    return text.encode("utf-8", "backslashreplace")


__all__ = ["encoded", "install_scrub", "outgoing_text"]
