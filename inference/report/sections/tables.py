"""Small formatting helpers shared by report.md sections, the leaderboard and the closing summary."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from pydantic import BaseModel

from ...benchmarks.layouts import field_value
from ...benchmarks.run_scores import RunScores


class NoIntervals:
    """Stands for the interval of a figure in a scores.json written before intervals: the figure prints alone."""

    def __repr__(self) -> str:
        return "NO_INTERVALS"


NO_INTERVALS: Final = NoIntervals()
Bounds = Mapping[str, Any] | None | NoIntervals  # scores.json's {"low", "high", "se", "n"}, None: the figure has none


def fmt(value: Any, digits: int = 2) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def fmt_p(p: float | None) -> str:
    """A p-value as a reader takes it: `0.012`, `0.34`, `< 0.001` (never `0`: a p-value is never zero, only smaller
    than what was computed); `-` for none."""
    if p is None:
        return "-"
    if p < 0.001:
        return "< 0.001"
    return f"{p:.2g}" if p < 0.1 else f"{p:.2f}"


def common_decimals(values: Iterable[float], significant: int = 4) -> int:
    """Decimals that give the largest of `values` `significant` digits, for all of them alike (one precision per
    interval: `+8.77 [+3.20, +14.86]`, not `+8.769 [+3.203, +14.86]`)."""
    largest = max((abs(value) for value in values), default=0.0)
    if largest == 0 or not math.isfinite(largest):
        return 2
    return min(6, max(0, significant - 1 - math.floor(math.log10(largest))))


def signed_with_interval(value: float, low: float, high: float) -> str:
    """A difference and its interval, signed, at one precision: `+8.77 [+3.20, +14.86]`."""
    digits = common_decimals((value, low, high))
    return f"{value:+.{digits}f} [{low:+.{digits}f}, {high:+.{digits}f}]"


def interval_of(source: BaseModel | Mapping[str, Any], name: str) -> Bounds:
    """Figure `name`'s interval in the `intervals` of `source` (a RunScores, a group of its figures that has its own,
    or another results file's JSON object: agreement.json); None when the figure has none, NO_INTERVALS when the file
    predates intervals."""
    if isinstance(source, Mapping):
        return (source["intervals"] or {}).get(name) if "intervals" in source else NO_INTERVALS
    if "intervals" not in source.model_fields_set:
        return NO_INTERVALS
    found = (getattr(source, "intervals", None) or {}).get(name)
    return None if found is None else found.model_dump()


def scaled(value: float | None, scale: float) -> float | None:
    return None if value is None else scale * value


def fmt_bounds(bounds: Bounds, digits: int = 2, scale: float = 1.0, unit: str = "") -> str:
    """`[8.39, 18.48]`; `no interval` for a figure without one; `-` for a scores.json from before intervals."""
    if isinstance(bounds, NoIntervals):
        return "-"
    if bounds is None:
        return "no interval"
    low, high = (fmt(scaled(bounds[side], scale), digits) + unit for side in ("low", "high"))
    return f"[{low}, {high}]"


def fmt_interval(value: float | None, bounds: Bounds, digits: int = 2, scale: float = 1.0, unit: str = "") -> str:
    """A figure with its 95% interval: `13.68 [8.39, 18.48]`, `13.68 [no interval]`, or the figure alone when the
    scores.json predates intervals. `scale` multiplies both (a fraction printed as a percent: 100)."""
    figure = fmt(scaled(value, scale), digits) + (unit if value is not None else "")
    if value is None or isinstance(bounds, NoIntervals):
        return figure
    return f"{figure} {'[no interval]' if bounds is None else fmt_bounds(bounds, digits, scale, unit)}"


def fmt_figure(
    source: BaseModel | Mapping[str, Any],
    name: str,
    value: float | None,
    digits: int = 2,
    scale: float = 1.0,
    unit: str = "",
) -> str:
    """Figure `name` of `source` (`interval_of`'s; its value `value`) with its interval, as `fmt_interval` prints it."""
    return fmt_interval(value, interval_of(source, name), digits, scale, unit)


def fmt_figures(scores: RunScores, labels: Mapping[str, str]) -> str:
    """Top-level figures of scores.json with their intervals: `CR 12.00 [8.00, 16.00], STIC-1 ...` (labels: scores.json
    key -> printed name)."""
    return ", ".join(
        f"{label} {fmt_figure(scores, name, field_value(scores.figures, name))}" for name, label in labels.items()
    )


def holds(bounds: Bounds, value: float) -> bool:
    """Whether the figure has an interval and it holds `value` (then the figure is not told apart from it)."""
    if isinstance(bounds, NoIntervals) or bounds is None:
        return False
    return bounds["low"] <= value <= bounds["high"]


def markdown_table(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> list[str]:
    """A markdown table; every column but the first is right-aligned."""
    lines = ["| " + " | ".join(header) + " |", "|---|" + "---:|" * (len(header) - 1)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return lines
