"""HelloEval's figures as functions of its row scores, for intervals (`longform_eval.metric.uncertainty`).

A task score is (mean row score of the task - 75) * 4 and the overall score the plain mean of the task scores, so a
resample keeps each task's number of prompts (stratified by task).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..uncertainty import Figure, affine, mean, stratified_mean

SCALE, OFFSET = 4.0, -300.0  # (m - 75) * 4


def helloeval_figures(row_scores: np.ndarray, tasks: Sequence[str]) -> dict[str, Figure]:
    """`overall` and one figure per task (the task's name), from row scores 0..100 (NaN: unscored)."""
    labels = np.asarray(tasks, dtype=object)
    scores = np.asarray(row_scores, dtype=float)
    figures = {"overall": affine(stratified_mean(scores, list(tasks)), SCALE, OFFSET)}
    for task in dict.fromkeys(tasks):
        in_task = (labels == task) & np.isfinite(scores)
        figures[task] = affine(mean(scores, scored=in_task), SCALE, OFFSET)
    return figures
