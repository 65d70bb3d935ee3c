"""LongBench-Write's figures as functions of per-item scores, for intervals (`longform_eval.metric.uncertainty`).

S_l averages every output, S_q the scored ones (NaN: unscored), S = (S_l + S_q) / 2; the item is the unit.
"""

from __future__ import annotations

import numpy as np

from ..uncertainty import Figure, mean, weighted_sum


def longbench_write_figures(s_l: np.ndarray, s_q: np.ndarray) -> dict[str, Figure]:
    length, quality = mean(s_l), mean(s_q)
    return {"s_l": length, "s_q": quality, "s": weighted_sum([length, quality], [0.5, 0.5])}
