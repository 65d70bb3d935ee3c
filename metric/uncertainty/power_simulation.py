"""Power by simulation: how often a planned run's paired interval excludes 0, its units drawn like the reference's.

The reference is a paired difference measured on shared units: its linearized contributions z per stratum. A
planned run of m_h units in stratum h (the reference's sizes in proportion, `allocate`) is simulated by drawing m_h
of the stratum's units with replacement; unit i moves the figure by u_i / m_h, u_i = n_h (z_i - mean z over the
stratum), so the simulated figure is D + the drawn moves, D the difference to detect. Its interval is the one a run
computes (`contributions_interval`: the t interval on its SE); the power is the share
of simulated runs whose interval excludes 0 on D's side. Unlike the noncentral t (`power.prompts_needed`), this
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

from .design import Design
from .intervals import DEFAULT_LEVEL, contributions_interval
from .power import DEFAULT_ALPHA, DEFAULT_POWER, PowerPlan, prompts_needed
from .variance import spread

DEFAULT_SIMULATIONS = 1000
PROMISE_Z = 1.6448536269514722  # the normal's 95% quantile: a power stated is its one-sided lower 95% bound
SIMULATED = (
    "power by simulation: {simulations} planned runs drawn from the reference's paired per-{unit} differences "
    "(with replacement, the reference's strata in proportion), each with its interval as a run computes it "
    "(the t interval on its SE); the {unit}s of a planned run vary as the reference's did"
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
    """A reference's paired difference: each stratum's unit moves u (n_h times the centred contributions)."""

    moves: list[np.ndarray]
    design: Design

    @classmethod
    def of(cls, z: np.ndarray, rests: np.ndarray, design: Design) -> PairedReference:
        """From a difference's linearized contributions `z` over the units in `rests` (strata of one unit dropped:
        they have no spread to draw from)."""
        moves = [len(g) * (g - g.mean()) for g in design.split(z, rests) if len(g) >= 2]
        if not moves:
            raise ValueError("the reference difference rests on one unit per stratum: nothing to simulate from")
        return cls(moves, design)

    @property
    def sizes(self) -> list[int]:
        return [len(moves) for moves in self.moves]

    def planned_design(self, total: int) -> tuple[Design, list[int]]:
        counts = allocate(total, self.sizes)
        strata = np.repeat(np.arange(len(counts)), counts)
        names = tuple(range(len(counts)))
        return Design(strata, names, self.design.unit, self.design.stratified_by), counts


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
    rng, rests, detected = np.random.default_rng(seed), np.ones(design.n_units, dtype=bool), 0
    for _ in range(simulations):
        drawn = [
            moves[rng.integers(0, len(moves), count)] / count
            for moves, count in zip(reference.moves, counts, strict=True)
        ]
        z = np.concatenate([d - d.mean() for d in drawn])
        point = difference + float(sum(d.sum() for d in drawn))
        found = spread(z, rests, design)
        if not found.variance > 0:
            continue  # a run whose units do not vary gets no interval: nothing detected
        interval = contributions_interval(point, found, level)
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
        SIMULATED.format(simulations=simulations, unit=unit),
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
