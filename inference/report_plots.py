"""The plots of report.md, each written whole (a temporary file, then replaced)."""

from __future__ import annotations

from pathlib import Path

from longform_eval.dataset_builder.atomic import replacing


def pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save(figure, path: Path) -> Path:
    figure.tight_layout()
    with replacing(path) as temporary:
        figure.savefig(temporary, dpi=110, format="png")
    pyplot().close(figure)
    return path


def bar_plot(path: Path, values: dict[str, float], ylabel: str, title: str) -> Path:
    figure, axis = pyplot().subplots(figsize=(7, 3.5))
    axis.bar(list(values), list(values.values()), color="#4c72b0")
    axis.axhline(0, color="black", linewidth=0.8)
    axis.set_ylabel(ylabel)
    axis.set_title(title)
    axis.tick_params(axis="x", rotation=20)
    return save(figure, path)


def scatter_plot(path: Path, x: list[float], y: list[float], xlabel: str, ylabel: str, title: str) -> Path:
    figure, axis = pyplot().subplots(figsize=(6, 4))
    axis.scatter(x, y, s=12, alpha=0.7)
    axis.set_xlabel(xlabel)
    axis.set_ylabel(ylabel)
    axis.set_title(title)
    return save(figure, path)


def line_plot(path: Path, x: list[float], series: dict[str, list], xlabel: str, ylabel: str, title: str) -> Path:
    figure, axis = pyplot().subplots(figsize=(6.5, 3.5))
    for (label, values), marker in zip(series.items(), "os^vD", strict=False):
        axis.plot(x, values, marker=marker, label=label)
    axis.set_xlabel(xlabel)
    axis.set_ylabel(ylabel)
    axis.set_ylim(0, 100)
    axis.set_title(title)
    axis.legend()
    return save(figure, path)


def loglog_scatter(
    path: Path, series: dict[str, tuple[list[float], list[float]]], xlabel: str, ylabel: str, title: str
) -> Path:
    """Log-log scatter of one or more (x, y) series with the y = x line; points at or below 0 cannot be drawn on a
    log scale and are counted in the title."""
    figure, axis = pyplot().subplots(figsize=(6, 6))
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
