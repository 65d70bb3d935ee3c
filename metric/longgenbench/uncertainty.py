"""LongGenBench's figures as functions of per-item sums, for intervals (`longform_eval.metric.uncertainty`).

Checks are clustered in items (one output answers all of an item's checks), so the item is the unit a resample
draws. Per item: its completion rate, its checks (judged or not, unscored ones left out), its judged checks and its
STIC-2 (100 * yes / checks, the item's row score for judge noise).
"""

from __future__ import annotations

import numpy as np

from ..uncertainty import Figure, affine, mean, product, ratio


def longgenbench_figures(
    cr: np.ndarray, stic2: np.ndarray, judged: np.ndarray, checks: np.ndarray
) -> dict[str, Figure]:
    """CR = mean item CR; STIC-1 = pooled yes / judged; STIC-2 = pooled yes / checks; wAvg = CR * STIC-2 / 100."""
    checks = np.asarray(checks, dtype=float)
    yes = np.nan_to_num(np.asarray(stic2, dtype=float)) * checks / 100.0
    stic2_figure = affine(ratio(yes, checks), 100.0)
    cr_figure = mean(cr)
    return {
        "cr": cr_figure,
        "stic1": affine(ratio(yes, np.asarray(judged, dtype=float)), 100.0),
        "stic2": stic2_figure,
        "wavg": product(cr_figure, stic2_figure, 1 / 100.0),
    }
