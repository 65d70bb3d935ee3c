"""Wilson's score interval of a share (Wilson 1927), and its one-sided form at the ends of a figure's scale.

At 0 of n and n of n the interval keeps its far side (`[n / (n + z^2), 1]` at n of n): the units show no spread,
yet the share is still uncertain. A figure whose every unit sits at one end of its known scale (a win rate of 20 of
20, a flip rate of 0 of 60) is such a share: its interval is Wilson's one-sided bound over its units, mapped onto the
scale (`edge_bounds`). For any value in [0, 1] of mean m the chance that n of them all sit at 1 is at most m^n, so
the bound of 0/1 units holds for any figure bounded by its scale.
"""

from __future__ import annotations

import math

from .quantiles import quantile

EDGE = 1e-12  # a figure this close to an end of its scale (as a share of the scale) sits at that end


def wilson_bounds(hits: float, n: float, level: float = 0.95) -> tuple[float, float]:
    """Wilson's score interval of a share of `hits` in `n` 0/1 units (n > 0)."""
    z = quantile(level, None)
    share, spread = hits / n, z * z / n
    centre = (share + spread / 2) / (1 + spread)
    half = z / (1 + spread) * math.sqrt(max(share * (1 - share), 0.0) / n + spread / (4 * n))
    low, high = max(0.0, centre - half), min(1.0, centre + half)
    return (0.0 if hits <= 0 else low), (1.0 if hits >= n else high)  # exact at 0 of n and n of n


def at_edge(point: float, scale: tuple[float, float]) -> int:
    """1 where `point` sits at the top of `scale`, -1 at its bottom, 0 elsewhere."""
    lowest, highest = scale
    tolerance = EDGE * (highest - lowest)
    return 1 if point >= highest - tolerance else -1 if point <= lowest + tolerance else 0


def edge_bounds(point: float, scale: tuple[float, float], n: int, level: float) -> tuple[float, float] | None:
    """Wilson's one-sided bounds of a figure on `scale` whose `n` units all sit at the end it sits at (n of n or 0 of
    n, mapped onto the scale); None where it sits at neither end or rests on fewer than two units."""
    side = at_edge(point, scale)
    if side == 0 or n < 2:
        return None
    lowest, highest = float(scale[0]), float(scale[1])
    reach = (highest - lowest) * (1 - wilson_bounds(n, n, level)[0])
    return (highest - reach, highest) if side > 0 else (lowest, lowest + reach)


__all__ = ["at_edge", "edge_bounds", "wilson_bounds"]
