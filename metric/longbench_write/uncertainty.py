"""LongBench-Write's figures as functions of per-item scores, for intervals (`longform_eval.metric.uncertainty`).

S_l averages every output, S_q the scored ones (NaN: unscored), S = (S_l + S_q) / 2; the item is the unit. A part
of the items (a required-length bucket, a language) gets the intervals of its own S_l and S_q, from resamples of
its items.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..uncertainty import Figure, mean, weighted_sum
from ..uncertainty.groups import as_dicts, group_intervals

UNIT = "prompt"


def longbench_write_figures(s_l: np.ndarray, s_q: np.ndarray) -> dict[str, Figure]:
    length, quality = mean(s_l), mean(s_q)
    return {"s_l": length, "s_q": quality, "s": weighted_sum([length, quality], [0.5, 0.5])}


def column(rows: Sequence[Mapping[str, Any]], name: str) -> np.ndarray:
    return np.array([np.nan if row[name] is None else row[name] for row in rows], dtype=float)


def part_intervals(rows: Sequence[Mapping[str, Any]], key: str) -> dict[str, dict[str, Any]]:
    """Per value of the rows' field `key` (a bucket, a language): {"s_l": interval, "s_q": interval} in the
    scores.json form, None for a part with a single scored item."""
    parts: dict[Any, list[Mapping[str, Any]]] = defaultdict(list)
    for row in rows:
        if row.get(key) is not None:
            parts[row[key]].append(row)
    return {
        name: as_dicts(group_intervals({f: mean(column(members, f)) for f in ("s_l", "s_q")}, unit=UNIT))
        for name, members in parts.items()
    }
