"""Runs a page could not use, named on the page with their reason (never an empty filter or an empty table).

Reading run folders warns once per folder or `hf://` entry it skips (`app.fetched`, `run_folders.read_runs`,
`viewer_rows.read_view_runs`); `noted_skips` keeps those warnings' lines for the page, and lets them go on to the log
as they are.
"""

from __future__ import annotations

import contextlib
import re
import warnings
from collections.abc import Iterator, Mapping, Sequence

from longform_eval.common.plurals import counted

from .safe_markdown import inert_text

SKIPPED = re.compile(r": (?:run folder skipped \(|no such run folder; skipped)")  # what follows the folder


@contextlib.contextmanager
def noted_skips() -> Iterator[list[str]]:
    """The lines of the runs skipped inside the block (filled when it ends); every warning is issued again."""
    found: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield found
    for warning in caught:
        warnings.warn_explicit(warning.message, warning.category, warning.filename, warning.lineno)
        if SKIPPED.search(str(warning.message)):
            found.append(str(warning.message))


def named(lines: Sequence[str], names: Mapping[str, str]) -> list[str]:
    """Each line with the local folder of an `hf://` entry (a cache snapshot) written as the entry (`names`)."""
    renamed = []
    for line in lines:
        match = SKIPPED.search(line)
        folder = line[: match.start()] if match else line
        renamed.append(names[folder] + line[len(folder) :] if folder in names else line)
    return renamed


def skipped_markdown(lines: Sequence[str]) -> str:
    """The page's note on the runs it could not use, each with its reason; "" when there is none."""
    if not lines:
        return ""
    items = "\n".join(f"- {inert_text(line)}" for line in lines)
    return f"**{counted(len(lines), 'run')} not shown (not readable here):**\n\n{items}"
