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
