"""Progress bars per stage with throughput and ETA."""

from __future__ import annotations

from contextlib import contextmanager

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

console = Console(stderr=True)


class ThroughputColumn(ProgressColumn):
    def render(self, task) -> Text:
        speed = task.finished_speed or task.speed
        return Text("-- /s" if speed is None else f"{speed:.2f}/s")


@contextmanager
def stage_progress(description: str, total: int):
    """Yields a function to call once per finished item."""
    with Progress(
        TextColumn("{task.description}", style="bold", markup=False),  # a model name is text, not markup
        BarColumn(),
        MofNCompleteColumn(),
        ThroughputColumn(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=console,
        transient=False,
    ) as progress:
        task = progress.add_task(description, total=total)
        yield lambda: progress.advance(task)
