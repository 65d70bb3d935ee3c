"""The plots of report.md, each written whole (a temporary file, then replaced).

A plot with fewer points than it needs is not drawn as an empty frame: the plot functions return `Absent`
instead, and the report says in words why the plot is missing.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from longform_eval.common.atomic import replacing

from ...scrubbed_output import scrubbed_text
from .drawn import drawn_once


@dataclass(frozen=True)
class Absent:
    """A plot left out because the run has too few points for it."""

    path: Path
    needed: int
    have: int
    unit: str

    def sentence(self) -> str:
        needs = f"it needs at least {self.needed} {self.unit}; this run has {self.have}"
        return f"`{self.path.name}` is not drawn: {needs}."


Plot = Path | Absent


def too_few(path: Path, needed: int, have: int, unit: str) -> Absent | None:
    """Absent (and any older drawing of `path` removed, so that it cannot be mistaken for this run's) when
    `have` < `needed`, else None."""
    if have >= needed:
        return None
    path.unlink(missing_ok=True)
    return Absent(path, needed, have, unit)


def split_plots(plots: list[Plot]) -> tuple[list[Path], list[str]]:
    """The drawn plots, and a sentence for each absent one."""
    drawn = [p for p in plots if isinstance(p, Path)]
    return drawn, [p.sentence() for p in plots if isinstance(p, Absent)]


def subplots(figsize: tuple[float, float], **options: Any):
    """A new figure and its axes (`Figure.subplots(**options)`), drawn by Agg when saved: no pyplot, so no global list
    of figures to close and a third of matplotlib's import time saved."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=figsize)
    FigureCanvasAgg(figure)  # measures text (a title fitted to its axes) before it is saved
    return figure, figure.subplots(**options)


def save(figure, path: Path) -> Path:
    """The figure as a PNG with every title fitted to its axes' width (wrapped at words) and nothing cut at the
    edges: the saved area grows to hold a long tick label (`bbox_inches="tight"`). Every text is scrubbed of the
    secrets in use and made harmless first, before a title is wrapped (a key split over two lines would escape)."""
    shown_texts(figure)
    for axis in figure.axes:
        fit_title(axis)
    figure.tight_layout()
    with replacing(path) as temporary:
        figure.savefig(temporary, dpi=110, format="png", bbox_inches="tight", pad_inches=0.1)
    return path


def shown_texts(figure) -> None:
    """Each text of the figure (titles, labels, tick labels, legends) as it may be shown: secrets masked, control
    characters escaped but its own line breaks (`shown.harmless`)."""
    from matplotlib.text import Text

    for text in figure.findobj(Text):
        content = text.get_text()
        if content:
            text.set_text(scrubbed_text(content))


def fit_title(axis) -> None:
    """Wrap the axes' title at words until each line is no wider than the figure."""
    title = axis.title
    text = title.get_text()
    if not text:
        return
    renderer = axis.figure.canvas.get_renderer()
    room = axis.figure.get_window_extent(renderer).width * 0.95
    width = title.get_window_extent(renderer).width
    if width <= room:
        return
    characters = max(20, int(len(text) * room / width))
    title.set_text("\n".join(textwrap.wrap(text, characters, break_long_words=False, break_on_hyphens=False)))


@drawn_once
def bar_plot(
    path: Path,
    values: dict[str, float],
    ylabel: str,
    title: str,
    unit: str = "bars",
    bounds: dict[str, tuple[float, float]] | None = None,
) -> Plot:
    """One bar per name; `bounds` (name -> (low, high), e.g. a 95% interval) draws error bars where given."""
    absent = too_few(path, 1, len(values), unit)
    if absent:
        return absent
    figure, axis = subplots(figsize=(7, 3.5))
    axis.bar(list(values), list(values.values()), color="#4c72b0")
    if bounds:
        error_bars(axis, values, bounds)
    axis.axhline(0, color="black", linewidth=0.8)
    axis.set_ylabel(ylabel)
    axis.set_title(title)
    axis.tick_params(axis="x", rotation=20)
    return save(figure, path)


def error_bars(axis, values: dict[str, float], bounds: dict[str, tuple[float, float]]) -> None:
    """Each bar's bounds as an error bar from low to high (drawn about their middle: a percentile interval need not
    be centred on its bar); a bar without bounds gets none."""
    names = [name for name in values if name in bounds]
    low, high = ([bounds[name][side] for name in names] for side in (0, 1))
    middle = [(a + b) / 2 for a, b in zip(low, high, strict=True)]
    half = [(b - a) / 2 for a, b in zip(low, high, strict=True)]
    axis.errorbar(names, middle, yerr=half, fmt="none", ecolor="black", capsize=4)


@drawn_once
def scatter_plot(
    path: Path, x: list[float], y: list[float], xlabel: str, ylabel: str, title: str, unit: str = "points"
) -> Plot:
    absent = too_few(path, 2, len(x), unit)
    if absent:
        return absent
    figure, axis = subplots(figsize=(6, 4))
    axis.scatter(x, y, s=12, alpha=0.7)
    axis.set_xlabel(xlabel)
    axis.set_ylabel(ylabel)
    axis.set_title(title)
    return save(figure, path)


@drawn_once
def line_plot(
    path: Path, x: list[float], series: dict[str, list], xlabel: str, ylabel: str, title: str, unit: str = "points"
) -> Plot:
    """One line per series; a point is an x with a value in some series, and a line needs two of them."""
    points = sum(any(values[i] is not None for values in series.values()) for i in range(len(x)))
    absent = too_few(path, 2, points, unit)
    if absent:
        return absent
    figure, axis = subplots(figsize=(6.5, 3.5))
    for (label, values), marker in zip(series.items(), "os^vD", strict=False):
        axis.plot(x, values, marker=marker, label=label)
    axis.set_xlabel(xlabel)
    axis.set_ylabel(ylabel)
    axis.set_ylim(0, 100)
    axis.set_title(title)
    axis.legend()
    return save(figure, path)


@drawn_once
def loglog_scatter(
    path: Path, series: dict[str, tuple[list[float], list[float]]], xlabel: str, ylabel: str, title: str
) -> Plot:
    """Log-log scatter of one or more (x, y) series with the y = x line; points at or below 0 cannot be drawn on a
    log scale and are counted in the title."""
    drawable = sum(a > 0 and b > 0 for x, y in series.values() for a, b in zip(x, y, strict=True))
    absent = too_few(path, 1, drawable, "points with both lengths above 0")
    if absent:
        return absent
    figure, axis = subplots(figsize=(6, 6))
    drawn, left_out = [], 0
    for label, (x, y) in series.items():
        points = [(a, b) for a, b in zip(x, y, strict=True) if a > 0 and b > 0]
        left_out += len(x) - len(points)
        if points:
            axis.scatter([a for a, _ in points], [b for _, b in points], s=16, alpha=0.6, label=label)
            drawn += [value for point in points for value in point]
    if drawn:
        low, high = min(drawn) / 1.5, max(drawn) * 1.5
        axis.plot([low, high], [low, high], "k--", linewidth=1, label="y = x")
        axis.set_xlim(low, high)
        axis.set_ylim(low, high)
    axis.set_xscale("log")
    axis.set_yscale("log")
    axis.set_xlabel(xlabel)
    axis.set_ylabel(ylabel)
    axis.set_title(title + (f" ({left_out} at 0 not drawn)" if left_out else ""), fontsize=10)
    if drawn:
        axis.legend(fontsize=8)
    return save(figure, path)


@drawn_once
def interval_plot(
    path: Path, ratings: dict[str, tuple[float, float, float]], xlabel: str, title: str, unit: str = "models"
) -> Plot:
    """One row per name: the point (rating) and its interval (lower, upper), best at the top."""
    absent = too_few(path, 1, len(ratings), unit)
    if absent:
        return absent
    ordered = sorted(ratings.items(), key=lambda item: item[1][0])
    points = [value for _, (value, _, _) in ordered]
    errors = [[value - low for _, (value, low, _) in ordered], [high - value for _, (value, _, high) in ordered]]
    figure, axis = subplots(figsize=(7, 1.2 + 0.45 * len(ordered)))
    axis.errorbar(points, range(len(ordered)), xerr=errors, fmt="o", color="#4c72b0", capsize=4)
    axis.set_yticks(range(len(ordered)), [name for name, _ in ordered])
    axis.set_xlabel(xlabel)
    axis.set_title(title)
    return save(figure, path)


@drawn_once
def heat_map(path: Path, names: list[str], matrix: list[list[float | None]], title: str, unit: str = "models") -> Plot:
    """Row i, column j: matrix[i][j] in percent (None: never compared, left blank)."""
    absent = too_few(path, 2, len(names), unit)
    if absent:
        return absent
    import numpy as np

    values = np.array([[np.nan if v is None else v for v in row] for row in matrix], dtype=float)
    size = 2.5 + 0.7 * len(names)
    figure, axis = subplots(figsize=(size + 1.5, size))
    image = axis.imshow(values, cmap="RdBu", vmin=0, vmax=100)
    for i, row in enumerate(values):
        for j, value in enumerate(row):
            if not np.isnan(value):
                axis.text(j, i, f"{value:.0f}", ha="center", va="center", fontsize=8)
    axis.set_xticks(range(len(names)), names, rotation=30, ha="right")
    axis.set_yticks(range(len(names)), names)
    axis.set_xlabel("opponent")
    axis.set_title(title, fontsize=10)
    figure.colorbar(image, ax=axis, label="win rate of the row model (%)")
    return save(figure, path)
