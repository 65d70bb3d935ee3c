"""A population with a known human win rate and a judge biased towards the longer answer: the validation of
`ppi_mean` (tests, bench/calibration_coverage.py).

Each item has a human outcome drawn from `HUMAN_SHARES` (win rate `TRUE_WIN_RATE` under the package's rule); the
model's answer is the longer one with probability `LONGER`. The judge gives the human outcome with probability
`FAITHFUL`; otherwise it prefers the longer answer `PREFERS_LONGER` of the time (else the shorter), so its win rate is
biased upwards and its labels still carry information about the humans'.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

OUTCOMES = ("A", "B", "equally_good", "equally_bad")
HUMAN_SHARES = (0.30, 0.40, 0.15, 0.15)
TRUE_WIN_RATE = HUMAN_SHARES[0] + 0.5 * (HUMAN_SHARES[2] + HUMAN_SHARES[3])  # 0.45
LONGER, FAITHFUL, PREFERS_LONGER = 0.75, 0.5, 0.7


@dataclass(frozen=True)
class Simulated:
    """The judge's outcome on every item, the human outcome on `labelled` items, and the truth."""

    judge: dict[str, str]
    human: dict[str, str]
    truth: float


def simulate(n_items: int, n_human: int, seed: int, faithful: float = FAITHFUL) -> Simulated:
    """`n_items` judged comparisons (ids "q0000", ...), of which `n_human` at random also carry a human label."""
    rng = np.random.default_rng(seed)
    human = rng.choice(4, size=n_items, p=HUMAN_SHARES)
    longer_is_model = rng.random(n_items) < LONGER
    prefers_longer = rng.random(n_items) < PREFERS_LONGER
    biased = np.where(longer_is_model == prefers_longer, 0, 1)  # 0: A (the model), 1: B
    judge = np.where(rng.random(n_items) < faithful, human, biased)
    ids = [f"q{i:04d}" for i in range(n_items)]
    labelled = rng.choice(n_items, size=n_human, replace=False)
    return Simulated(
        {ids[i]: OUTCOMES[judge[i]] for i in range(n_items)},
        {ids[i]: OUTCOMES[human[i]] for i in sorted(labelled)},
        TRUE_WIN_RATE,
    )


__all__ = ["TRUE_WIN_RATE", "Simulated", "simulate"]
