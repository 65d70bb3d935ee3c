"""The pairwise win rate and GSB as means over comparisons, for intervals (`longform_eval.metric.uncertainty`).

A comparison's win value is 1 (the model's answer better), 0 (the baseline's) or 0.5 (equally good or bad), so the
win rate is its mean and GSB = (wins - losses) / n = 2 * win rate - 1.
"""

from __future__ import annotations

import numpy as np

from ..uncertainty import Figure, affine, mean
from .outcomes import Outcome

WIN_VALUE = {Outcome.A: 1.0, Outcome.B: 0.0, Outcome.EQUALLY_GOOD: 0.5, Outcome.EQUALLY_BAD: 0.5}


def pairwise_figures(win_values: np.ndarray) -> dict[str, Figure]:
    win_rate = mean(win_values)
    return {"win_rate": win_rate, "gsb": affine(win_rate, 2.0, -1.0)}
