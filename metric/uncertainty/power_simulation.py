"""Power by simulation: how often a planned run's paired interval excludes 0, its units drawn like the reference's.

The reference is a paired difference measured on shared units: its linearized contributions z per stratum. A
planned run of m_h units in stratum h (the reference's sizes in proportion, `allocate`) is simulated by drawing m_h
of the stratum's units with replacement; unit i moves the figure by u_i / m_h, u_i = n_h (z_i - mean z over the
stratum), so the simulated figure is D + the drawn moves, D the difference to detect. Its interval is the one a run
computes (`planned_interval`): the t interval on its SE, each side reaching, where the figures' scale is known, as
far as an unseen failure could move it, as `report` prints a paired difference (`comparison.failure_reaches`, at the
run's two figures: the references' midpoint -/+ half the simulated difference, with the failures its drawn units
show: each unit drawn carries whether each run's value sat at an end of the scale), cut to the difference's range;
a run whose units differ by no more than float noise gets no interval (`variance.only_float_noise`: a report prints
none, so nothing is detected). The power is the share of simulated runs whose interval excludes 0 on D's side.
Unlike the noncentral t (`power.prompts_needed`), this
follows the reference's own skew and tails: those plans reached 74-88% where 80% was stated
(bench/interval_coverage.py). The plan is a total where the power crosses the target, found by bisection with the
same seeded draws at every total (power is not strictly monotone in the total: the allocation moves in steps); the
power is then measured again there on fresh draws, and where that falls short of the target plus one Monte Carlo SE
the total grows until it does not (the bisection stops where its own draws happen to reach the target, so a plan
taken from them alone stated 77.8-78.6% measured at its size). The plan states the power it can promise there: the
lower 95% Monte Carlo bound of the power measured on another set of draws, twice as many, which played no part in
choosing the size (at least the target; the size grows until it is). Strata of one unit in
the reference are left out (they show no spread to draw from).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .comparison import difference_figure, failure_reaches
from .design import Design
from .figures import Figure
from .intervals import (
    DEFAULT_LEVEL,
    Bounds,
    Interval,
    sided_interval,
)
from .power import DEFAULT_ALPHA, DEFAULT_POWER, PowerPlan, prompts_needed
from .unseen_failures import EDGE_SHARE, far_below
from .variance import FLOAT_NOISE, gradient, linearized, rests_on, spread

DEFAULT_SIMULATIONS = 1000
ALLOWANCE = ", each side widened by the allowance for an unseen failure, as the report prints it"
PROMISE_Z = 1.6448536269514722  # the normal's 95% quantile: a power stated is its one-sided lower 95% bound
SIMULATED = (
    "power by simulation: {simulations} planned runs drawn from the reference's paired per-{unit} differences "
    "(with replacement, the reference's strata in proportion), each with its interval as a run computes it "
    "(the t interval on its SE{allowance}); the {unit}s of a planned run vary as the reference's did"
)


def allocate(total: int, sizes: list[int], smallest: int = 2) -> list[int]:
    """`total` units over strata in proportion to `sizes` (largest remainders), at least `smallest` each."""
    shares = [total * size / sum(sizes) for size in sizes]
    found = [math.floor(share) for share in shares]
    for h in sorted(range(len(sizes)), key=lambda h: found[h] - shares[h])[: total - sum(found)]:
        found[h] += 1
    return [max(smallest, size) for size in found]


@dataclass(frozen=True)
class PairedReference:
    """A reference's paired difference: each stratum's unit moves u (n_h times the centred contributions); `points`
    the two figures' points and `scale` their scale (None: not known, no reach for unseen failures), for the interval
    `report` prints; `noise` the spread of contributions within a stratum at or below which a run's units do not vary
    (float noise on the terms they are made of, `variance.only_float_noise`); `ends` per stratum, for each unit and
    run, -1 where the run's value sits at the bottom of `scale`, 1 at its top, 0 elsewhere (None: not known, no
    failure counted), so a planned run counts the failures its drawn units show."""

    moves: list[np.ndarray]
    design: Design
    points: tuple[float, float] | None = None
    scale: Bounds = None
    noise: float = 0.0
    ends: list[np.ndarray] | None = None

    @classmethod
    def of(
        cls,
        z: np.ndarray,
        rests: np.ndarray,
        design: Design,
        points: tuple[float, float] | None = None,
        scale: Bounds = None,
        size: float | None = None,
        ends: np.ndarray | None = None,
    ) -> PairedReference:
        """From a difference's linearized contributions `z` over the units in `rests` (strata of one unit dropped:
        they have no spread to draw from); `size` the largest term a unit's contribution sums (`of_pair`; None where
        not known: no float-noise test, as z is centred and cannot tell), which sets the float noise; `ends` (units,
        2): where each run's value sits at an end of `scale` (`PairedReference.ends`; None: not known). A reference
        whose units differ by float noise alone is refused."""
        noise = FLOAT_NOISE * (size or 0.0)
        kept = [len(g) >= 2 for g in design.split(z, rests)]
        moves = [len(g) * (g - g.mean()) for g, keep in zip(design.split(z, rests), kept, strict=True) if keep]
        if not moves:
            raise ValueError("the reference difference rests on one unit per stratum: nothing to simulate from")
        if noise and all(np.ptp(m) / len(m) <= noise for m in moves):
            raise ValueError("the reference difference does not vary (float noise alone): nothing to simulate from")
        if ends is not None:
            split = zip(design.split(ends[:, 0], rests), design.split(ends[:, 1], rests), kept, strict=True)
            ends = [np.column_stack([a, b]).astype(np.int8) for a, b, keep in split if keep]
        return cls(moves, design, points, scale, noise, ends)

    @classmethod
    def of_pair(cls, a: Figure, b: Figure, design: Design, scale: Bounds = None) -> PairedReference:
        """From two runs' figures on the same units, as `comparison.paired_difference` takes them (a ValueError where
        there is nothing to simulate from)."""
        points = a.point(), b.point()
        difference = difference_figure(a, b)
        z, slope = linearized(difference), gradient(difference)
        if None in points or z is None or slope is None:
            raise ValueError("the reference difference is undefined on these units")
        rests = rests_on(difference)
        terms = np.abs(difference.columns) @ np.abs(slope)
        size = float(terms[rests].max()) if rests.any() else 0.0
        ends = None
        if scale is not None and a.values is not None and b.values is not None:
            ends = np.column_stack([scale_ends(a.values, scale), scale_ends(b.values, scale)])
        return cls.of(z, rests, design, (float(points[0]), float(points[1])), scale, size, ends)

    @property
    def sizes(self) -> list[int]:
        return [len(moves) for moves in self.moves]

    def planned_design(self, total: int) -> tuple[Design, list[int]]:
        counts = allocate(total, self.sizes)
        strata = np.repeat(np.arange(len(counts)), counts)
        names = tuple(range(len(counts)))
        return Design(strata, names, self.design.unit, self.design.stratified_by), counts

    def failed(self, drawn: list[np.ndarray], points: tuple[float, float]) -> tuple[int, int]:
        """The failures of each run (units at the end of the scale farther from its figure at `points`) among the
        drawn units (`drawn`: each stratum's drawn rows of `ends`); none where not known."""
        if self.ends is None or self.scale is None:
            return 0, 0
        codes = np.concatenate(drawn)
        far = [-1 if far_below(point, self.scale) else 1 for point in points]
        return int(np.count_nonzero(codes[:, 0] == far[0])), int(np.count_nonzero(codes[:, 1] == far[1]))

    def run_points(self, point: float) -> tuple[float, float]:
        """A planned run's two figures where its difference is `point`: the references' midpoint -/+ half of it, cut
        to the scale."""
        if self.points is None:
            return point, 0.0
        middle = (self.points[0] + self.points[1]) / 2
        a, b = middle + point / 2, middle - point / 2
        if self.scale is not None:
            a, b = (min(max(x, self.scale[0]), self.scale[1]) for x in (a, b))
        return a, b


def planned_interval(
    point: float,
    points: tuple[float, float],
    z: np.ndarray,
    design: Design,
    level: float = DEFAULT_LEVEL,
    scale: Bounds = None,
    noise: float = 0.0,
    failed: tuple[int, int] = (0, 0),
) -> Interval | None:
    """The interval `comparison.paired_difference` prints for a difference `point` of figures at `points` with
    contributions `z` over every unit of `design` (all scored), `failed` the failures each run's units show: the t
    interval on its SE, each side reaching as far as an unseen failure could move it (`failure_reaches`) and cut to
    the difference's range where `scale` is known. None where the units do not vary, float noise (within `noise` in
    every stratum) included: no interval."""
    rests = np.ones(len(z), dtype=bool)
    found = spread(z, rests, design)
    if not found.variance > 0 or all(np.ptp(g) <= noise for g in design.split(z, rests) if len(g)):
        return None
    below, above = failure_reaches(points, scale, found.n, found.se, failed, level)
    bounds = None if scale is None else (scale[0] - scale[1], scale[1] - scale[0])
    return sided_interval(point, found.se, found.df, found.n, level, bounds, below, above)


def simulated_power(
    reference: PairedReference,
    total: int,
    difference: float,
    level: float = DEFAULT_LEVEL,
    simulations: int = DEFAULT_SIMULATIONS,
    seed: int = 0,
) -> float:
    """The share of `simulations` planned runs of `total` units whose interval excludes 0 on `difference`'s side."""
    design, counts = reference.planned_design(total)
    rng, detected = np.random.default_rng(seed), 0
    # contributions over m_h units instead of n_h scale by about n_h / m_h, the terms they sum and their float noise too
    noise = reference.noise * sum(reference.sizes) / design.n_units
    ends = reference.ends or [np.zeros((len(moves), 2), dtype=np.int8) for moves in reference.moves]
    for _ in range(simulations):
        picks = [rng.integers(0, len(moves), count) for moves, count in zip(reference.moves, counts, strict=True)]
        drawn = [moves[pick] / len(pick) for moves, pick in zip(reference.moves, picks, strict=True)]
        z = np.concatenate([d - d.mean() for d in drawn])
        point = difference + float(sum(d.sum() for d in drawn))
        points = reference.run_points(point)
        failed = reference.failed([codes[pick] for codes, pick in zip(ends, picks, strict=True)], points)
        interval = planned_interval(point, points, z, design, level, reference.scale, noise, failed)
        if interval is None:
            continue  # a run whose units do not vary gets no interval: nothing detected
        detected += interval.low > 0 if difference > 0 else interval.high < 0
    return detected / simulations


def simulated_plan(
    reference: PairedReference,
    difference: float,
    alpha: float = DEFAULT_ALPHA,
    power: float = DEFAULT_POWER,
    simulations: int = DEFAULT_SIMULATIONS,
    seed: int = 0,
) -> PowerPlan:
    """The units (in the reference's strata, in proportion) at which the simulated power crosses `power`, and the
    power measured there afresh."""
    n_reference, strata = sum(reference.sizes), len(reference.sizes)
    se = math.sqrt(sum(m.var(ddof=1) / len(m) for m in reference.moves))
    start = prompts_needed(difference, se, n_reference, alpha, power, strata=strata).prompts

    def reaches(total: int) -> bool:
        return simulated_power(reference, total, difference, 1 - alpha, simulations, seed) >= power

    low, high = bracket(reaches, max(start, 2 * strata), 2 * strata, 100 * n_reference)
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if reaches(middle) else (middle, high)
    # measured afresh: the search stopped at `high` because its draws reached the power, which flatters them
    high, expected = verified(reference, high, difference, alpha, power, simulations, seed + 1, 100 * n_reference)
    units = sum(reference.planned_design(high)[1])  # at least 2 per stratum: may exceed `high`
    unit = reference.design.unit
    return PowerPlan(
        units,
        float(difference),
        se * math.sqrt(n_reference / units),
        alpha,
        power,
        SIMULATED.format(simulations=simulations, unit=unit, allowance=ALLOWANCE if reference.scale else ""),
        expected,
    )


def verified(
    reference: PairedReference,
    total: int,
    difference: float,
    alpha: float,
    power: float,
    simulations: int,
    seed: int,
    largest: int,
) -> tuple[int, float]:
    """The smallest total from `total` up (in steps of 2%) whose power, measured on the draws of `seed`, reaches
    `power` plus one Monte Carlo SE, and the power it can promise there: the lower 95% bound (`power_lower_bound`)
    of the power measured on twice as many draws of `seed + 1` (which did not choose the size, so it is not flattered
    by the choice; at least `power`, else the search goes on); a ValueError past `largest`."""
    margin = math.sqrt(power * (1 - power) / simulations)
    while total <= largest:
        if simulated_power(reference, total, difference, 1 - alpha, simulations, seed) >= power + margin:
            fresh = simulated_power(reference, total, difference, 1 - alpha, 2 * simulations, seed + 1)
            stated = power_lower_bound(fresh, 2 * simulations)
            if stated >= power:
                return total, stated
        total = math.ceil(total * 1.02) + 1
    raise ValueError(f"the difference is not detected at the stated power even with {largest:,} units")


def power_lower_bound(measured: float, simulations: int) -> float:
    """The one-sided lower 95% bound of a power measured as a share of `simulations` draws (normal approximation):
    the plan states what its Monte Carlo error still promises (stating the share itself, plans measured on other
    draws fell up to 2.9 points short of it, bench/interval_coverage.py)."""
    return max(0.0, measured - PROMISE_Z * math.sqrt(measured * (1 - measured) / simulations))


def bracket(reaches, start: int, smallest: int, largest: int) -> tuple[int, int]:
    """(low, high): `reaches(high)` and not `reaches(low)` (low = smallest - 1 where even the smallest reaches);
    a ValueError past `largest`."""
    if reaches(start):
        high = start
        while high > smallest:
            low = max(smallest, math.floor(high * 0.8))
            if not reaches(low):
                return low, high
            high = low
        return smallest - 1, smallest
    low = start
    while low <= largest:
        high = math.ceil(low * 1.25) + 1
        if reaches(high):
            return low, high
        low = high
    raise ValueError(f"the difference is not detected at the stated power even with {low:,} units")


def scale_ends(values: np.ndarray, scale: tuple[float, float]) -> np.ndarray:
    """-1 where a value sits at the bottom of `scale`, 1 at its top, 0 elsewhere (NaN included)."""
    tolerance = EDGE_SHARE * (scale[1] - scale[0])
    return np.where(values <= scale[0] + tolerance, -1, np.where(values >= scale[1] - tolerance, 1, 0)).astype(np.int8)
