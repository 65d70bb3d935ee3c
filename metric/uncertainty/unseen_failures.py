"""How failures at the far end of a figure's scale shape its interval's two sides (see `intervals`): how many units
sit there (`failed_units`); how far from the figure the far side must reach so that failures at a rate up to
UNSEEN_RATE that the sample does not show move the figure past it no more often than the level allows
(`unseen_reach`); the near side's quantile once the far side reaches past its t share (`near_quantile`: at a
failure rate of 0 the interval keeps its level); and, where the sample shows failures, how far the near side must
reach for a sample that shows more of them than its rate (`shown_reach`, on the spread of the units that did not
fail, `shown_failures`).
"""

from __future__ import annotations

import numpy as np
from scipy.special import bdtr, ndtri  # scipy.stats' binom.cdf, norm.ppf without scipy.stats

from .design import Design
from .figures import Bounds, Figure
from .quantiles import quantile, t_cdf, t_quantile
from .variance import Measured, spread

UNSEEN_RATE = 0.015  # the highest failure rate an interval allows for beyond the failures its sample shows: above
# qwen_max's 0.8% (HelloBench's released models score 0 on 0-0.8% of prompts, suri_7b 1.7% with a spread that holds
# it); at 1.25% a model failing on 1% of prompts covered 92.8% at 5 prompts per task once the near side drew in where
# failures show (`shown_reach`), at 1.5% 94.3-95.0% (bench/interval_coverage.py)
PAIRED_RATE = 0.01  # the same for each run of a paired difference, whose sides each reach for one run's failures: at
# 1.25% a pair near the top with zeros on 1% of prompts covered 97-98% (its other side, reaching for the other run's
# failures, missed almost never) and pairs without failures up to 98% (bench/interval_coverage.py)
EDGE_SHARE = 1e-9  # a unit this close to an end of the scale (as a share of the scale) sits at that end
REACH_GRID = np.linspace(0.0, 1.0, 33)  # the failure rates searched, as shares of the allowed excess
SHOWN_GRID = np.linspace(0.0, 1.0, 129)[1:]  # the failure rates searched below the share shown, as shares of it
SHOWN_PART = 0.2  # the part of 1 - level the near side may miss by where a sample shows more failures than its rate:
# at 0.3 models near the top failing on 0.2-0.5% of prompts or three times in one task cover at most 97.1% at 10-30
# prompts per task (97.3-97.9% at 0.2), but held-out models with real zeros fall to 92.6-92.9%
# (bench/near_side_frontier.py, 8,000 draws per cell)


def far_below(point: float, bounds: tuple[float, float]) -> bool:
    """Whether the end of `bounds` farther from `point` is the lower one (the figure sits in the upper half)."""
    return point > (bounds[0] + bounds[1]) / 2


def at_far_end(figure: Figure, point: float, bounds: Bounds) -> np.ndarray | None:
    """Which units sit at the end of `bounds` farther from `point` (None where the figure has no unit values or the
    scale is not known)."""
    if bounds is None or figure.values is None:
        return None
    tolerance = EDGE_SHARE * (bounds[1] - bounds[0])
    values = figure.values
    return values <= bounds[0] + tolerance if far_below(point, bounds) else values >= bounds[1] - tolerance


def failed_units(figure: Figure, point: float, bounds: Bounds, rests: np.ndarray | None = None) -> int:
    """The units (of those in `rests`, all where None) whose value sits at the end of `bounds` farther from `point`:
    the failures a sample shows (`Figure.values`; 0 where the figure has no unit values or the scale is not known)."""
    at_end = at_far_end(figure, point, bounds)
    if at_end is None:
        return 0
    return int(np.count_nonzero(at_end if rests is None else at_end[rests]))


def shown_failures(found: Measured, figure: Figure, point: float, bounds: Bounds, design: Design) -> tuple[int, float]:
    """The failures the units the figure rests on show (`failed_units`), and the SE of its part on the units that did
    not fail: 0 where none failed, where a stratum is left with one such unit (its part unmeasured) or where part of
    the spread is borrowed (`sparse`), so that no near side is drawn in on it (`shown_reach`)."""
    at_end = at_far_end(figure, point, bounds)
    failed = 0 if at_end is None else int(np.count_nonzero(at_end[found.rests]))
    if not failed or found.spread.borrowed > 0:
        return failed, 0.0
    rest = spread(found.z, found.rests & ~at_end, design)
    return failed, rest.se if rest.singletons == 0 else 0.0


def unseen_reach(runs: list[tuple[float, int]], n: int, se: float, level: float, allowed: float = UNSEEN_RATE) -> float:
    """How far from its figure an interval on `n` units must reach so that failures its sample does not show move the
    figure past it no more often than the level allows on that side: `runs`, (distance, failed) for each run whose
    failures move the figure that way (one for a single figure, up to two for a paired difference), `distance` from
    its figure to the far end of its scale and `failed` the units of the sample that sit there (`failed_units`).

    A run whose units fail at rate p (p n = lambda failures expected) shows at most `failed` of them with the exact
    binomial chance P(lambda) = B(failed; n, p), and its figure then lies (lambda - failed) x distance / (n -
    failed) above the truth (a failure moves a mean of n units by the distance of the units that did not fail over
    n; over strata the same on average). The reach is the largest over rates from failed / n up to `allowed`
    (UNSEEN_RATE; PAIRED_RATE for a paired difference) of bias + se x z(1 - beta / P), beta = 1 - level, so that P x
    Phi((bias - reach) / se) <= beta at each: the chance that the sample shows no more failures and the rest of its
    error does not make up for them is at most the share the interval may miss. Two runs take the worst of their
    rates together (P the product, the biases added). Wide where a few units show no failure (a failure moves the
    figure far), shrinking as more units show none; nothing where the sample shows failures at that rate (its SE
    holds them) or once n exceeds about ln(1 / beta) / `allowed` units and the chance of seeing none at a rate that
    matters is below beta. Half the level's share, (1 - level) / 2, widened the released gpt4o_0806 by 4-6% at 10-30
    prompts per task and over-covered failures on 1% of prompts (96-98%); 1 - level with failures up to 1.25%
    covered them at 94.0-95.9% but a model near the top with no failure at 97-98%, until the near side paid for the
    reach (`near_quantile`): 96.4-96.9%; UNSEEN_RATE says why it is 1.5% beside a near side drawn in where failures
    show (bench/interval_coverage.py)."""
    beta = 1 - level
    runs = [(distance, failed) for distance, failed in runs if allowed * n > failed]  # the others show theirs
    if n < 1 or not runs:
        return 0.0
    bias, chance = np.zeros(1), np.ones(1)
    for distance, failed in runs:
        expected = failed + (allowed * n - failed) * REACH_GRID
        bias = np.add.outer(bias, (expected - failed) * distance / (n - failed)).ravel()
        chance = np.multiply.outer(chance, bdtr(failed, n, np.minimum(expected / n, 1.0))).ravel()
    kept = chance > beta
    if not kept.any():
        return 0.0
    return max(float(np.max(bias[kept] + se * ndtri(1 - beta / chance[kept]))), 0.0)


def near_quantile(far: float, df: float | None, level: float) -> float:
    """The t quantile of the near side (towards the end of the scale nearer the figure) of an interval whose far side
    reaches `far` SEs from its figure on the scale the interval is built on (the logit's where it is): the near side
    misses what the far side leaves of 1 - level, so that where the population has no failure the interval keeps its
    level; the level's own quantile where the far side reaches no further than it, never below 0. Without this the
    reach made a model near the top that never fails cover 97-98% (bench/interval_coverage.py)."""
    two_sided = quantile(level, df)
    if not far > two_sided:
        return two_sided
    return max(t_quantile(level + t_cdf(-far, df), df), 0.0)


def shown_reach(failed: int, n: int, distance: float, se: float, level: float) -> float | None:
    """How far towards the end of its scale nearer the figure an interval on `n` units must reach where they show
    `failed` failures (None where they show none, or `se` is 0: `near_quantile` sets that side then); `distance`
    from the figure to the far end of its scale, `se` the SE of the units that did not fail (`shown_failures`).

    The units that did not fail sit distance x n / (n - failed) from the far end on average, so a run whose units fail
    at a rate p below failed / n, which shows that many or more with the exact binomial chance
    P = 1 - B(failed - 1; n, p), lies (failed - p n) x distance / (n - failed) beyond the truth (towards the far end).
    The reach is the largest over those rates of that bias + se x z(1 - share / P), share = SHOWN_PART x
    (1 - level), so that P x Phi((bias - reach) / se) <= share at each: the mirror of `unseen_reach`. The interval
    takes it where it is shorter than its own near side (never wider): a t side on the whole SE, which the failures'
    own spread inflates, reached 1.2-1.5 times as far (median, 30 and 5 prompts per task) and covered a model failing
    on 0.2-0.5% of prompts 96.8-98.5%; with this side 96.0-97.7%, held-out models with real zeros up to 0.9 points
    lower (bench/interval_coverage.py; docs/reproducibility-and-deviations.md says why). Measured from the figure
    instead of the units that did not fail, the bias fell short by failed / n: win rates with ties, a fifth of them
    losses, covered 92%."""
    share = SHOWN_PART * (1 - level)
    if not 0 < failed < n or not se > 0:
        return None
    rates = failed / n * SHOWN_GRID
    chance = 1 - bdtr(failed - 1, n, rates)
    kept = chance > share
    if not kept.any():
        return None
    bias = (failed - rates[kept] * n) * distance / (n - failed)
    return float(np.max(bias + se * ndtri(1 - share / chance[kept])))
