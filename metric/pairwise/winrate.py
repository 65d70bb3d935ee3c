"""Win rates between models."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

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


@dataclass(frozen=True)
class OutcomeRates:
    """One side's record against another over a set of comparisons (the side shown as A in each outcome).

    `win_rate` counts both ties as half a win (the package's rule, as Elo and Bradley-Terry); `tencent_win_rate` is
    TencentLLMEval's formula, which gives nothing for "equally bad"; `gsb` = (#A - #B) / n, the good-same-bad score.
    """

    n: int
    wins: int
    losses: int
    equally_good: int
    equally_bad: int
    win_rate: float
    tencent_win_rate: float
    gsb: float
    equally_good_rate: float
    equally_bad_rate: float


def outcome_rates(outcomes: Sequence[Outcome]) -> OutcomeRates:
    """Counts and rates of `outcomes` (labels are read with `as_outcome`); no outcomes is a ValueError."""
    if not outcomes:
        raise ValueError("no outcomes: the rates are not defined")
    counts = Counter(as_outcome(outcome) for outcome in outcomes)
    n = len(outcomes)
    wins, losses = counts[Outcome.A], counts[Outcome.B]
    good, bad = counts[Outcome.EQUALLY_GOOD], counts[Outcome.EQUALLY_BAD]
    return OutcomeRates(
        n=n,
        wins=wins,
        losses=losses,
        equally_good=good,
        equally_bad=bad,
        win_rate=(wins + 0.5 * (good + bad)) / n,
        tencent_win_rate=(wins + 0.5 * good) / n,
        gsb=(wins - losses) / n,
        equally_good_rate=good / n,
        equally_bad_rate=bad / n,
    )
