"""Elo (TencentLLMEval: K = 4, start 1000, mean over 20 seeded shuffles) and Bradley-Terry with bootstrap CIs.

Ties ("equally good" and "equally bad") are draws: S = 0.5 in Elo, half a win and half a loss in Bradley-Terry.

A rating from a few battles is no rating: a model with fewer than MIN_BATTLES battles gets no interval and is not
ranked (`BradleyTerry.reasons`, `ranked`), and the Bradley-Terry maximum-likelihood ratings are finite only where
every model has scored against the others and they against it (the battle graph is strongly connected; one vote
gives 2549.7 and -549.7, the ridge's numbers, not a fit): otherwise no model gets a rating. The bootstrap interval
is left out where more than alpha / 2 of the resamples lose that connection (their fit diverges: one tail is
unknown), and where the ratings do not vary over the resamples (all ties: no point "interval"); a percentile interval
that leaves out the point rating (a skewed bootstrap) is widened to hold it.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from longform_eval.common.plurals import counted

from ..uncertainty.intervals import check_order
from .outcomes import Battle, models_of, score_for_a

ELO_SCALE = 400.0
RIDGE = 1e-9  # keeps a model that never lost (or never won) at a finite rating
MIN_BATTLES = 20  # a model with fewer battles has no rating interval and no rank (the Space ranks from 20 votes)
NEVER_LOST = "no finite rating: some models never lost (or never won) against the others"
DIVERGES = "the fit diverges on more than {share:.1%} of the resamples"
FLAT = "the rating does not vary over resamples of the battles: no spread to estimate"


def check_integer(name: str, value: object, minimum: int) -> None:
    """Raise a ValueError naming the argument unless `value` is an integer (not a bool) >= minimum."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral) or value < minimum:
        kind = "a positive integer" if minimum == 1 else f"an integer >= {minimum}"
        raise ValueError(f"{name} must be {kind}, got {value!r}")


def check_number(name: str, value: object, positive: bool = False) -> None:
    """Raise a ValueError naming the argument unless `value` is a finite number (and > 0 if `positive`)."""
    real = isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))
    if not real or not math.isfinite(value) or (positive and value <= 0):
        raise ValueError(f"{name} must be a {'positive' if positive else 'finite'} number, got {value!r}")


def check_bootstrap(bootstrap: object, seed: object, alpha: object) -> None:
    """Raise a ValueError naming the argument unless the bootstrap's rounds and seed are integers >= 0 and alpha is in
    (0, 1)."""
    check_integer("bootstrap", bootstrap, 0)
    check_integer("seed", seed, 0)
    check_number("alpha", alpha)
    if not 0 < alpha < 1:  # type: ignore[operator]
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")


def battle_arrays(battles: Sequence[Battle], models: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    index = {m: i for i, m in enumerate(models)}
    a = np.fromiter((index[b.model_a] for b in battles), dtype=np.int64, count=len(battles))
    b = np.fromiter((index[b.model_b] for b in battles), dtype=np.int64, count=len(battles))
    s = np.fromiter((score_for_a(x.outcome) for x in battles), dtype=np.float64, count=len(battles))
    return a, b, s


def elo_win_probability(rating_i: float, rating_j: float) -> float:
    """Elo-implied probability that i beats j: 1 / (1 + 10^((R_j - R_i) / 400))."""
    return 1.0 / (1.0 + 10.0 ** ((rating_j - rating_i) / ELO_SCALE))


def elo_ratings(
    battles: Sequence[Battle],
    k: float = 4.0,
    initial: float = 1000.0,
    rounds: int = 20,
    seed: int = 0,
    shuffle: bool = True,
) -> dict[str, float]:
    """Online Elo over the battles in random order, averaged over `rounds` seeded shuffles (no battles: {}).

    `shuffle=False` runs the battles in the order given (as FastChat's `compute_elo` does); every round is then
    the same, so use `rounds=1`.
    """
    check_integer("rounds", rounds, 1)
    check_integer("seed", seed, 0)
    check_number("k", k, positive=True)
    check_number("initial", initial)
    models = models_of(battles)
    a, b, s = battle_arrays(battles, models)
    rng = np.random.default_rng(seed)
    total = np.zeros(len(models))
    for _ in range(rounds):
        ratings = [initial] * len(models)
        for t in rng.permutation(len(battles)).tolist() if shuffle else range(len(battles)):
            i, j = a[t], b[t]
            expected = 1.0 / (1.0 + 10.0 ** ((ratings[j] - ratings[i]) / ELO_SCALE))
            delta = k * (s[t] - expected)
            ratings[i] += delta
            ratings[j] -= delta
        total += ratings
    return dict(zip(models, (total / rounds).tolist(), strict=True))


def fit_strengths(a: np.ndarray, b: np.ndarray, s: np.ndarray, n_models: int) -> np.ndarray:
    """Maximum-likelihood Bradley-Terry log-strengths (mean zero) from aggregated pairwise points."""
    points = np.zeros((n_models, n_models))
    np.add.at(points, (a, b), s)
    np.add.at(points, (b, a), 1.0 - s)

    def objective(theta: np.ndarray) -> tuple[float, np.ndarray]:
        diff = theta[:, None] - theta[None, :]
        log_p = -np.logaddexp(0.0, -diff)
        p = np.exp(log_p)
        value = -float(np.sum(points * log_p)) + RIDGE * float(theta @ theta)
        pull = points * (1.0 - p)
        gradient = -(pull.sum(axis=1) - pull.sum(axis=0)) + 2 * RIDGE * theta
        return value, gradient

    tight = {"ftol": 1e-15, "gtol": 1e-11, "maxiter": 10_000}  # the peers' fits agree to 1e-6 Elo only at the optimum
    from scipy.optimize import minimize  # on the first fit: importing the metric stays light

    result = minimize(objective, np.zeros(n_models), jac=True, method="L-BFGS-B", options=tight)
    return result.x - result.x.mean()


@dataclass(frozen=True)
class BradleyTerry:
    """Ratings on the Elo scale (None: no finite rating) and their bounds (None: no interval, `reasons` says why);
    `battles` per model."""

    models: list[str]
    ratings: dict[str, float | None]
    lower: dict[str, float | None]
    upper: dict[str, float | None]
    rounds: int
    battles: dict[str, int] = field(default_factory=dict)
    reasons: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for model in self.models:
            point, low, high = self.ratings.get(model), self.lower.get(model), self.upper.get(model)
            if point is not None and low is not None and high is not None:
                check_order(point, low, high)

    def ranked(self, model: str) -> bool:
        """Whether the model has a rating with an interval (enough battles, a finite fit on the resamples)."""
        return self.lower.get(model) is not None


def bradley_terry(
    battles: Sequence[Battle], bootstrap: int = 100, seed: int = 0, base: float = 1000.0, alpha: float = 0.05
) -> BradleyTerry:
    """BT ratings on the Elo scale (base + 400 * log10-strength) with percentile bootstrap intervals.

    No battles gives no ratings (empty dicts); `bootstrap` must be an integer >= 0 (0: no bootstrap, no interval),
    `seed` an integer >= 0, `base` a finite number and `alpha` in (0, 1). A model below MIN_BATTLES battles, or
    every model where the fit (or more than alpha / 2 of the resamples' fits) diverges, has no interval, `reasons`
    saying why; without a finite fit there are no ratings either.
    """
    check_bootstrap(bootstrap, seed, alpha)
    check_number("base", base)
    if not battles:
        return BradleyTerry(models=[], ratings={}, lower={}, upper={}, rounds=bootstrap)
    models = models_of(battles)
    a, b, s = battle_arrays(battles, models)
    to_elo = ELO_SCALE / math.log(10.0)
    counts = dict(zip(models, np.bincount(np.concatenate([a, b]), minlength=len(models)).tolist(), strict=True))
    reasons = too_few_battles(counts)
    if not connected(a, b, s, len(models)):
        why = NEVER_LOST
        none: dict[str, float | None] = dict.fromkeys(models)
        return BradleyTerry(models, none, dict(none), dict(none), bootstrap, counts, dict.fromkeys(models, why))
    point = base + to_elo * fit_strengths(a, b, s, len(models))

    def refit(pick: np.ndarray) -> np.ndarray:
        if not connected(a[pick], b[pick], s[pick], len(models)):
            return np.full(len(models), np.nan)
        return base + to_elo * fit_strengths(a[pick], b[pick], s[pick], len(models))

    low, high = percentile_interval(refit, len(battles), point, bootstrap, seed, alpha)
    if bootstrap == 0:
        reasons = {m: "no bootstrap rounds: no interval" for m in models} | reasons
    elif not np.all(np.isfinite(low)):
        reasons = dict.fromkeys(models, DIVERGES.format(share=alpha / 2)) | reasons
    reasons |= {m: FLAT for i, m in enumerate(models) if m not in reasons and not high[i] > low[i]}
    bounded = [m for m in models if m not in reasons]
    return BradleyTerry(
        models=models,
        ratings=dict(zip(models, point.tolist(), strict=True)),
        lower={m: float(low[i]) if m in bounded else None for i, m in enumerate(models)},
        upper={m: float(high[i]) if m in bounded else None for i, m in enumerate(models)},
        rounds=bootstrap,
        battles=counts,
        reasons=reasons,
    )


def too_few_battles(counts: dict[str, int]) -> dict[str, str]:
    """Why each model with fewer than MIN_BATTLES battles has no interval and no rank."""
    return {
        m: f"{counted(n, 'battle')}, fewer than {MIN_BATTLES}: not ranked" for m, n in counts.items() if n < MIN_BATTLES
    }


def connected(a: np.ndarray, b: np.ndarray, s: np.ndarray, n_models: int) -> bool:
    """Whether every model can be reached from every other through battles it scored in (a win or a tie): the
    condition under which the maximum-likelihood ratings are finite (Zermelo 1929; Ford 1957)."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    scored = np.concatenate([a[s > 0], b[s < 1]]), np.concatenate([b[s > 0], a[s < 1]])
    graph = coo_matrix((np.ones(len(scored[0])), scored), shape=(n_models, n_models))
    return connected_components(graph, directed=True, connection="strong")[0] == 1


def percentile_interval(
    refit: Callable[[np.ndarray], np.ndarray],
    n_battles: int,
    point: np.ndarray,
    bootstrap: int,
    seed: int,
    alpha: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap over battles: `refit(indices)` rates one resample (NaN where its fit diverges); no rounds
    gives (point, point); NaN bounds where more than alpha / 2 of the resamples diverge. Percentiles that leave out
    the point rating (a skewed bootstrap, or few rounds) are widened to hold it."""
    if not bootstrap:
        return point, point
    rng = np.random.default_rng(seed)
    samples = np.stack([refit(rng.integers(0, n_battles, n_battles)) for _ in range(bootstrap)])
    diverged = np.isnan(samples).any(axis=1)
    if diverged.mean() > alpha / 2:
        return np.full(len(point), np.nan), np.full(len(point), np.nan)
    # a diverged resample lies beyond one tail, which one unknown: counted in both (the wider interval)
    kept, tail = samples[~diverged], (alpha / 2 * bootstrap - diverged.sum()) / max(1, (~diverged).sum())
    low, high = np.quantile(kept, [max(tail, 0.0), min(1 - tail, 1.0)], axis=0)
    return np.minimum(low, point), np.maximum(high, point)


def predicted_win_rates(ratings: dict[str, float]) -> dict[tuple[str, str], float]:
    return {(i, j): elo_win_probability(ri, rj) for i, ri in ratings.items() for j, rj in ratings.items() if i != j}
