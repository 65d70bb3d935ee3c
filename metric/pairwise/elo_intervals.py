"""95% intervals of Elo ratings: a percentile bootstrap over battles, as FastChat's leaderboard computes them.

Each resample draws the battles with replacement (their drawn order is a random order) and runs the online Elo update
over it once; all resamples run side by side, one battle position at a time. The interval holds the order's noise as
well as the battles': the point rating (`elo_ratings`, a mean over 20 shuffles) has less of the first, and where the
percentiles leave it out the interval is widened to hold it.

Elo has no interval where Bradley-Terry has none (`ratings`): a model with fewer than `ratings.MIN_BATTLES` battles,
battles in which some model never lost or never won (one model winning all 25 battles: every resample gives the same
ratings, a point "interval"), or resamples that lose that connection more than alpha / 2 of the time; nor where the
ratings do not vary over the resamples. `reasons` says why.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..uncertainty.intervals import check_order
from .outcomes import Battle, models_of
from .ratings import (
    ELO_SCALE,
    FLAT,
    battle_arrays,
    check_bootstrap,
    check_number,
    connected,
    elo_ratings,
    too_few_battles,
)


@dataclass(frozen=True)
class EloIntervals:
    """Per model its rating (`elo_ratings`) and bounds (None: no interval, `reasons` says why) from `rounds`
    resamples."""

    lower: dict[str, float | None]
    upper: dict[str, float | None]
    rounds: int
    reasons: dict[str, str] = field(default_factory=dict)
    ratings: dict[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for model, low in self.lower.items():
            high = self.upper[model]
            if low is not None and high is not None and model in self.ratings:
                check_order(self.ratings[model], low, high)


def elo_intervals(
    battles: Sequence[Battle],
    bootstrap: int = 100,
    seed: int = 0,
    alpha: float = 0.05,
    k: float = 4.0,
    initial: float = 1000.0,
) -> EloIntervals:
    """Percentile bootstrap bounds of each model's Elo rating (K = `k`, start `initial`)."""
    check_bootstrap(bootstrap, seed, alpha)
    check_number("k", k, positive=True)
    models = models_of(battles)
    point = elo_ratings(battles, k, initial, seed=seed) if battles else {}
    if not battles or bootstrap < 2:
        why = "no battles" if not battles else "fewer than two bootstrap rounds: no interval"
        return EloIntervals(dict.fromkeys(models), dict.fromkeys(models), bootstrap, dict.fromkeys(models, why), point)
    a, b, s = battle_arrays(battles, models)
    counts = np.bincount(np.concatenate([a, b]), minlength=len(models))
    drawn = np.random.default_rng(seed).integers(0, len(battles), size=(bootstrap, len(battles)))
    samples = online_elo(a[drawn], b[drawn], s[drawn], len(models), k, initial)
    low, high = np.quantile(samples, [alpha / 2, 1 - alpha / 2], axis=0)
    reasons = too_few_battles(dict(zip(models, counts.tolist(), strict=True)))
    why = unrated(a, b, s, drawn, len(models), alpha)
    if why is not None:
        reasons = dict.fromkeys(models, why) | reasons
    reasons |= {m: FLAT for i, m in enumerate(models) if m not in reasons and not high[i] > low[i]}
    return EloIntervals(
        lower={m: None if m in reasons else min(float(low[i]), point[m]) for i, m in enumerate(models)},
        upper={m: None if m in reasons else max(float(high[i]), point[m]) for i, m in enumerate(models)},
        rounds=bootstrap,
        reasons=reasons,
        ratings=point,
    )


def unrated(a: np.ndarray, b: np.ndarray, s: np.ndarray, drawn: np.ndarray, n_models: int, alpha: float) -> str | None:
    """Why no model has an Elo interval where Bradley-Terry has none: some model never lost or never won (the battles
    are not strongly connected), or more than alpha / 2 of the resamples lose that connection."""
    if not connected(a, b, s, n_models):
        return "some models never lost (or never won) against the others (Bradley-Terry has no rating)"
    lost = sum(not connected(a[row], b[row], s[row], n_models) for row in drawn)
    if lost > alpha / 2 * len(drawn):
        return f"the battles lose that connection on over {alpha / 2:.1%} of the resamples (Bradley-Terry diverges)"
    return None


def online_elo(a: np.ndarray, b: np.ndarray, s: np.ndarray, n_models: int, k: float, initial: float) -> np.ndarray:
    """Elo after running each row's battles (rows: resamples, columns: battles in order), (rows, n_models)."""
    rounds = a.shape[0]
    ratings = np.full((rounds, n_models), initial)
    rows = np.arange(rounds)
    for t in range(a.shape[1]):
        i, j = a[:, t], b[:, t]
        expected = 1.0 / (1.0 + 10.0 ** ((ratings[rows, j] - ratings[rows, i]) / ELO_SCALE))
        delta = k * (s[:, t] - expected)
        ratings[rows, i] += delta
        ratings[rows, j] -= delta
    return ratings


__all__ = ["EloIntervals", "elo_intervals"]
