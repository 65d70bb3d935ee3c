"""`datasets`' own progress bars held back while a short step runs: a bar of full width for a split built in a
fraction of a second would be drawn wider than the user's terminal, and tells nothing."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator


@contextlib.contextmanager
def without_datasets_bars() -> Iterator[None]:
    """No `datasets` progress bar inside the block; the setting found is restored after it."""
    from datasets.utils import logging as datasets_logging

    was_enabled = datasets_logging.is_progress_bar_enabled()
    datasets_logging.disable_progress_bar()
    try:
        yield
    finally:
        if was_enabled:
            datasets_logging.enable_progress_bar()


__all__ = ["without_datasets_bars"]
