"""Two other calibrations of the variance a task with one prompt borrows, beside the package's, on the coverage
bench's populations (`interval_coverage.one_sparse`: one task holds one prompt, the others 5 or 30):

- package: `borrowed.borrowed_variance` (the lone task's deviation normal, its variance one of the other tasks' up to
  its chi2 sampling error);
- own deviations: the lone prompt's deviation drawn like one of the other tasks' own centred prompts (n/(n-1)
  scaled), no normal;
- own deviations x chi2: those deviations scaled by each task's chi2 predictive spread, as the package's variances.

Each borrows the variance at which the interval covers at 95% on average over its plausible deviations.

    python bench/borrowed_alternatives.py [--simulations 1000]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from scipy.optimize import brentq
from scipy.special import gammaincinv, ndtr, stdtrit

sys.path.insert(0, str(Path(__file__).resolve().parent))
import interval_coverage as coverage  # noqa: E402

from longform_eval.metric.uncertainty import sparse  # noqa: E402
from longform_eval.metric.uncertainty.borrowed import QUANTILES, borrowed_variance  # noqa: E402

MODELS = ("gpt4o_0806", "llama31_8b", "qwen2_7b", "top, rare zeros", "heavy tails", "bimodal tasks")


def own_deviations(values: np.ndarray, design, scaled: bool) -> tuple[np.ndarray, np.ndarray, int]:
    """(deviations, their weights: each task alike, the pooled df)."""
    kept = [s for s in design.split(values, np.isfinite(values)) if len(s) >= 2]
    deviations, weights = [], []
    for stratum in kept:
        df = len(stratum) - 1
        found = (stratum - stratum.mean()) * np.sqrt(len(stratum) / df)
        if scaled:
            found = np.outer(found, np.sqrt(df / (2 * gammaincinv(df / 2, QUANTILES)))).ravel()
        deviations.append(found)
        weights.append(np.full(len(found), 1 / (len(found) * len(kept))))
    return np.concatenate(deviations), np.concatenate(weights), sum(len(s) - 1 for s in kept)


def calibrated(scaled: bool):
    def borrowed(values, design, slopes_squared, rest, level):
        deviations, weights, df = own_deviations(values, design, scaled)
        if not len(deviations) or slopes_squared <= 0:
            return 0.0, float(df)
        q, spread = float(stdtrit(df, (1 + level) / 2)), np.sqrt(max(rest, 1e-24))
        reach = np.sqrt(slopes_squared) * np.abs(deviations)

        def shortfall(c: float) -> float:
            half = q * np.sqrt(slopes_squared * c + rest)
            return float(np.sum(weights * (ndtr((half - reach) / spread) - ndtr((-half - reach) / spread))) - level)

        if shortfall(0.0) >= 0:
            return 0.0, float(df)
        upper = max(float(np.max(deviations**2)), 1e-9)
        while shortfall(upper) < 0:
            upper *= 4
        return float(brentq(shortfall, 0.0, upper, xtol=1e-12 * upper)), float(df)

    return borrowed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--simulations", type=int, default=1000)
    args = parser.parse_args()
    started, population = time.perf_counter(), coverage.load(0)
    print(f"{args.simulations} simulated benchmarks per cell, seed 0; coverage (mean width on -300..100)")
    print("| calibration, others | " + " | ".join(MODELS) + " |\n|---|" + "---|" * len(MODELS))
    for name, borrow in (
        ("package", borrowed_variance),
        ("own deviations", calibrated(False)),
        ("own deviations x chi2", calibrated(True)),
    ):
        sparse.borrowed_variance = borrow
        rng = np.random.default_rng(0)
        for n in (5, 30):
            cells = [coverage.one_sparse(population, m, n, args.simulations, rng)["package"] for m in MODELS]
            text = " | ".join(f"{c:.1%} ({w:.1f})" for c, w in cells)
            print(f"| {name}, {n} | {text} |", flush=True)
    sparse.borrowed_variance = borrowed_variance
    print(f"\ntime: {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
