"""Win rates between models."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np

from .outcomes import Battle, Outcome, as_outcome, models_of, score_for_a


def win_rate_matrix(battles: Sequence[Battle], models: Sequence[str] | None = None) -> tuple[list[str], np.ndarray]:
    """W[i, j] = share of points model i took against model j (ties count half); NaN where they never met."""
    models = list(models or models_of(battles))
    if len(set(models)) != len(models):
        raise ValueError(f"models are repeated: {models}")
    index = {m: i for i, m in enumerate(models)}
    missing = sorted(set(models_of(battles)) - set(index))
    if missing:
        raise ValueError(f"battles involve models not in `models`: {missing}")
    points = np.zeros((len(models), len(models)))
    games = np.zeros_like(points)
    for battle in battles:
        i, j = index[battle.model_a], index[battle.model_b]
        s = score_for_a(battle.outcome)
        points[i, j] += s
        points[j, i] += 1 - s
        games[i, j] += 1
        games[j, i] += 1
    with np.errstate(invalid="ignore", divide="ignore"):
        return models, np.where(games > 0, points / games, np.nan)


def tencent_win_rate(outcomes: Sequence[Outcome]) -> float:
    """TencentLLMEval's formula for A over B: (#A + 0.5 #EG) / (#A + #B + #EG + #EB).

    Labels are read with `as_outcome` (an unknown one raises a ValueError); no outcomes at all is a ValueError.
    """
    if not outcomes:
        raise ValueError("no outcomes: the win rate is not defined")
    counts = Counter(as_outcome(outcome) for outcome in outcomes)
    return (counts[Outcome.A] + 0.5 * counts[Outcome.EQUALLY_GOOD]) / len(outcomes)
