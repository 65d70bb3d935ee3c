"""Progress bars per stage with count, throughput, elapsed time and ETA, on one line at any terminal width.

The figures never give way: where the line is too long for the terminal, the bar shrinks (down to `BAR_MIN`) and then
the description (the stage and the model's display label) is shortened in its middle with an ellipsis.

The console follows rich's environment variables: `COLUMNS` sets the width (else the terminal's, else 80);
`TTY_COMPATIBLE=1` draws live bars where the output is not a terminal (a CI log that renders escape codes, a test),
`TTY_COMPATIBLE=0` never does. Without a terminal a bar is printed once, in its final state, when its stage ends.
"""

from __future__ import annotations

from contextlib import contextmanager

from rich.cells import cell_len
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Column
from rich.text import Text

from .scrubbed_output import HarmlessConsole, scrubbed_line

console = HarmlessConsole("stderr")  # rich's escapes kept; what it is given to draw is made harmless first

BAR_MIN, BAR_MAX = 10, 40
RATE_WIDTH = 9  # `2255.06/s`; wider rates take the bar's room
TIME_WIDTH = 7  # `0:00:00`
ETA = "ETA"
ELLIPSIS = "…"


def terminal_width() -> int:
    """The width of the terminal the package prints to (`COLUMNS` wins; 80 where there is no terminal)."""
    return console.width


class ThroughputColumn(ProgressColumn):
    def render(self, task) -> Text:
        speed = task.finished_speed or task.speed
        if speed is None:
            return Text("-- /s")
        return Text(f"{speed:.2f}/s" if speed < 1000 else f"{speed:.0f}/s")


def shortened(text: str, width: int) -> str:
    """`text` in at most `width` cells: its middle cut out for an ellipsis (a path keeps its start and its file)."""
    if cell_len(text) <= width:
        return text
    if width <= 1:
        return ELLIPSIS[:width]
    head, tail = "", ""
    chars = list(text)
    take_head = True
    while chars and cell_len(head) + cell_len(tail) + 1 + cell_len(chars[0] if take_head else chars[-1]) <= width:
        if take_head:
            head += chars.pop(0)
        else:
            tail = chars.pop() + tail
        take_head = not take_head
    return head + ELLIPSIS + tail


def figures_width(total: int) -> int:
    """The cells the count, rate, elapsed time and ETA take, with the gaps between the columns (one cell each)."""
    count = 2 * len(str(total)) + 1
    return count + RATE_WIDTH + TIME_WIDTH + len(ETA) + TIME_WIDTH + 6  # 7 columns: 6 gaps


def description_width(total: int, width: int) -> int:
    """What is left for the description at `width` cells, the figures and the smallest bar placed first."""
    return max(1, width - figures_width(total) - BAR_MIN)


def fixed(min_width: int | None = None) -> Column:
    return Column(no_wrap=True, min_width=min_width)


@contextmanager
def stage_progress(description: str, total: int):
    """Yields a function to call once per finished item."""
    with Progress(
        # a model name is text, not markup
        TextColumn("{task.description}", style="bold", markup=False, table_column=Column(no_wrap=True)),
        BarColumn(bar_width=None, table_column=Column(min_width=BAR_MIN, max_width=BAR_MAX)),
        MofNCompleteColumn(table_column=fixed()),
        ThroughputColumn(table_column=fixed(RATE_WIDTH)),
        TimeElapsedColumn(table_column=fixed(TIME_WIDTH)),
        TextColumn(ETA, table_column=fixed()),
        TimeRemainingColumn(table_column=fixed(TIME_WIDTH)),
        console=console,
        transient=False,
    ) as progress:
        shown = scrubbed_line(description)  # before it is cut: no part of a key is left for the scrub to miss
        task = progress.add_task(shortened(shown, description_width(total, console.width)), total=total)
        yield lambda: progress.advance(task)
