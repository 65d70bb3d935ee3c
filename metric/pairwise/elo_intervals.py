"""95% intervals of Elo ratings: a percentile bootstrap over battles, as FastChat's leaderboard computes them.

Each resample draws the battles with replacement (their drawn order is a random order) and runs the online Elo update
over it once; all resamples run side by side, one battle position at a time. The interval holds the order's noise as
well as the battles': the point rating (`elo_ratings`, a mean over 20 shuffles) has less of the first. A model with
fewer than `ratings.MIN_BATTLES` battles has no interval (`reasons`), as for Bradley-Terry.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from .outcomes import Battle, models_of
from .ratings import ELO_SCALE, battle_arrays, check_bootstrap, check_number, too_few_battles


@dataclass(frozen=True)
class EloIntervals:
    """Per model its bounds (None: no interval, `reasons` says why) from `rounds` resamples."""

    lower: dict[str, float | None]
    upper: dict[str, float | None]
    rounds: int
    reasons: dict[str, str] = field(default_factory=dict)


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
    if not battles or bootstrap < 2:
        why = "no battles" if not battles else "fewer than two bootstrap rounds: no interval"
        return EloIntervals(dict.fromkeys(models), dict.fromkeys(models), bootstrap, dict.fromkeys(models, why))
    a, b, s = battle_arrays(battles, models)
    counts = np.bincount(np.concatenate([a, b]), minlength=len(models))
    drawn = np.random.default_rng(seed).integers(0, len(battles), size=(bootstrap, len(battles)))
    samples = online_elo(a[drawn], b[drawn], s[drawn], len(models), k, initial)
    low, high = np.quantile(samples, [alpha / 2, 1 - alpha / 2], axis=0)
    reasons = too_few_battles(dict(zip(models, counts.tolist(), strict=True)))
    return EloIntervals(
        lower={m: None if m in reasons else float(low[i]) for i, m in enumerate(models)},
        upper={m: None if m in reasons else float(high[i]) for i, m in enumerate(models)},
        rounds=bootstrap,
        reasons=reasons,
    )


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
