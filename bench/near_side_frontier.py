"""What the near side's share buys: coverage of single figures, by how much of the level's miss the near side may
spend where a sample shows failures (`unseen_failures.SHOWN_PART`), on the populations it trades between.

Near the top with failures on 0.2-0.5% of prompts (synthetic, `hard_populations`) the package's interval covers a
little above 97% at 10-30 prompts per task, the near side missing too rarely; HelloBench's held-out models with real
zeros (qwen_max 0.8%, glm4_api 0.6%, claude35 and gemini15_pro 0.3%) cover 93-95%, their far side missing most. A
larger share draws the near side in further where failures show: this bench prints what each share does to both,
and to the same intervals with an Edgeworth term for the skewness of the units that did not fail (Hall 1992: the t
quantiles of a mean shifted by -skew x (2 q^2 + 1) / 6, the logit's own built-in skewness taken out), the textbook
remedy for a t interval on skewed scores. Draws as `interval_coverage.py` makes them (i.i.d. prompts, n per task),
8,000 per cell by default: the Monte Carlo SE of a cell is then 0.2-0.3 points (0.4-0.6 at the 2,000 draws of
`interval_coverage.py`). The skewness is that of the units that did not fail (the failures have their own bounds),
scaled by their spread, and moves the quantiles of the whole SE.

A last table (`--tables far`) asks whether the real models' far-side misses can pay for a larger share: the far
side's t quantile multiplied by a fixed factor (1.05, 1.1), beside shares 0.2 and 0.3, on the synthetic populations,
the held-out models with real zeros and the released ones, with each cell's mean width relative to the package's
(its plain quantiles at its share) on the same draws. The package takes no factor: bench/RESULTS.md says why.

    python bench/near_side_frontier.py --judgements DIR [--draws 8000] [--shares 0.1,0.2,0.3,0.4]
        [--tables shares,edgeworth,far] [--far 1.05,1.1]
"""

from __future__ import annotations

import argparse
import importlib
import math
import platform
import sys
import time
from pathlib import Path

import numpy as np
from scipy.special import expit, logit

sys.path.insert(0, str(Path(__file__).resolve().parent))
import interval_coverage as coverage  # noqa: E402
from hard_populations import CLUSTERED, RATES  # noqa: E402

from longform_eval.dataset_builder.hellobench import TASKS  # noqa: E402
from longform_eval.metric.uncertainty import Design  # noqa: E402
from longform_eval.metric.uncertainty.quantiles import quantile  # noqa: E402

intervals = importlib.import_module("longform_eval.metric.uncertainty.intervals")
unseen = importlib.import_module("longform_eval.metric.uncertainty.unseen_failures")

SYNTHETIC = [*RATES, CLUSTERED]
WITH_ZEROS = ("qwen_max", "glm4_api", "claude35", "gemini15_pro")  # held-out models with real zeros
FAR_SHARES = (0.2, 0.3)
SIZES = (5, 10, 30)


def estimator_skew(z: np.ndarray, keep: np.ndarray, design: Design) -> float:
    """The skewness of a stratified sum of contributions `z` over the units in `keep` (each stratum's unbiased
    third cumulant over its variance part, strata of three or more units)."""
    third, variance = 0.0, 0.0
    for values in design.split(z, keep):
        n = len(values)
        if n < 2:
            continue
        deviations = values - values.mean()
        variance += n / (n - 1) * float((deviations**2).sum())
        if n >= 3:
            third += n * n / ((n - 1) * (n - 2)) * float((deviations**3).sum())
    return third / variance**1.5 if variance > 0 else 0.0


def edgeworth(skew: float, built_in: float, q_low: float, q_high: float, below: bool) -> tuple[float, float]:
    """Hall's term at each side's own quantile, the logit's own skewness term `built_in` taken out."""
    q_low = max(q_low - skew * (2 * q_low**2 + 1) / 6 - built_in * q_low**2, 0.0)
    q_high = max(q_high + skew * (2 * q_high**2 + 1) / 6 + built_in * q_high**2, 0.0)
    return q_low, q_high


def skew_corrected(figure, design: Design, level: float = 0.95):
    """The package's interval with an Edgeworth term on the t quantiles (see the module)."""
    return reshaped(figure, design, edgeworth, level)


def far_factor(factor: float):
    """An interval maker: the package's, its far side's t quantile multiplied by `factor` (the near side as the
    package sets it, from the far side's reach, unchanged)."""

    def adjust(skew: float, built_in: float, q_low: float, q_high: float, below: bool) -> tuple[float, float]:
        return (q_low * factor, q_high) if below else (q_low, q_high * factor)

    return lambda figure, design: reshaped(figure, design, adjust)


def reshaped(figure, design: Design, adjust, level: float = 0.95):
    """The package's interval with its two t quantiles passed through `adjust(skew, built_in, q_low, q_high,
    below)`: `skew` that of the units that did not fail, `built_in` the logit's own skewness term, `below` whether
    the far side is the lower one: `far_factor(1.0)` is the package's interval."""
    found, reason = intervals.measured(figure, design)
    point, bounds = figure.point(), coverage.SCALE
    if found is None or point is None or reason is not None or not bounds[0] < point < bounds[1]:
        return intervals.figure_interval(figure, design, level, bounds)
    failed, rest = unseen.shown_failures(found, figure, point, bounds, design)
    at_end = unseen.at_far_end(figure, point, bounds)
    skew = estimator_skew(found.z, found.rests & ~at_end, design)
    se, df, n = found.spread.se, found.spread.df, found.spread.n
    distance = max(point - bounds[0], bounds[1] - point)
    reach = unseen.unseen_reach([(distance, failed)], n, se, level)
    lowest, width = bounds[0], bounds[1] - bounds[0]
    share = (point - lowest) / width
    slope, q, below = 1 / (share * (1 - share) * width), quantile(level, df), unseen.far_below(point, bounds)
    centre, end = float(logit(share)), point - reach if below else point + reach
    far = abs(logit((end - lowest) / width) - centre) / (se * slope) if bounds[0] < end < bounds[1] else math.inf
    near = unseen.near_quantile(far, df, level)
    q_low, q_high = (q, near) if below else (near, q)
    built_in = (2 * share - 1) / (2 * share * (1 - share) * width) * se  # the logit's own skewness term
    q_low, q_high = adjust(skew, built_in, q_low, q_high, below)
    low = lowest + width * float(expit(centre - q_low * se * slope))
    high = lowest + width * float(expit(centre + q_high * se * slope))
    made = intervals.Interval(point, min(low, point), max(high, point), se, n, rounds=0, level=level, df=df)
    made = intervals.reaching(made, reach, bounds)
    return intervals.drawn_in(made, unseen.shown_reach(failed, n, distance, rest, level), bounds)


CELLS: dict[tuple, tuple[float, float, float, float]] = {}  # by (name, size, draws, maker, share): the far tables'
# reference widths are the package's cells, which the shares table at the package's share has drawn already


def cell(pop, name: str, per_task: int, draws: int, make) -> tuple[float, float, float, float]:
    """(coverage, misses below, misses above, mean width) over `draws` benchmarks of `per_task` prompts per task
    (the same draws for every maker), drawn once per maker and share."""
    key = (name, per_task, draws, make, unseen.SHOWN_PART)
    if key not in CELLS:
        CELLS[key] = drawn_cell(pop, name, per_task, draws, make)
    return CELLS[key]


def drawn_cell(pop, name: str, per_task: int, draws: int, make) -> tuple[float, float, float, float]:
    rows = pop.rows(name)
    truth, by_task, rng = pop.truth(name, rows), pop.by_task(rows), np.random.default_rng(per_task)
    held, below, width = 0, 0, 0.0
    for _ in range(draws):
        picked = coverage.draw(rng, by_task, dict.fromkeys(TASKS, per_task))
        tasks = list(pop.tasks[picked])
        found = make(coverage.overall(pop.values(name, picked, rng), tasks), Design.stratified(tasks, by="task"))
        held += found is not None and found.contains(truth)
        below += found is not None and truth < found.low
        width += 0.0 if found is None else found.width
    return held / draws, below / draws, (draws - held - below) / draws, width / draws


def row(pop, name: str, draws: int, make, widths: list[float] | None = None) -> str:
    """A population's cells; with `widths` (the package's mean widths per size), each cell's width relative to it."""
    cells = [cell(pop, name, n, draws, make) for n in SIZES]
    if widths is None:
        notes = [""] * len(SIZES)
    else:
        notes = [f", width {w / base - 1:+.1%}" for (*_, w), base in zip(cells, widths, strict=True)]
    shown = zip(cells, notes, strict=True)
    return " / ".join(f"{c:.1%} [{b:.1%} below, {a:.1%} above{note}]" for (c, b, a, _), note in shown)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--judgements", type=Path, required=True, help="the upstream results/judgements/main_exp")
    parser.add_argument("--draws", type=int, default=8000)
    parser.add_argument("--shares", default="0.1,0.2,0.3,0.4", help="SHOWN_PART values to measure")
    parser.add_argument("--tables", default="shares,edgeworth,far", help="which tables to print")
    parser.add_argument("--far", default="1.05,1.1", help="the far side's factors of the last table")
    args = parser.parse_args()
    started, tables = time.perf_counter(), args.tables.split(",")
    pop, held_out = coverage.load(0, args.judgements)
    names = SYNTHETIC + [name for name in WITH_ZEROS if name in held_out]
    print(
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {platform.machine()}, Python "
        f"{platform.python_version()}; {args.draws} draws per cell; coverage at 5 / 10 / 30 prompts per task"
    )
    if "shares" in tables:
        for share in (float(share) for share in args.shares.split(",")):
            mark = " (the package)" if share == unseen.SHOWN_PART else ""
            table(f"near side's share {share:g}{mark}", pop, names, args.draws, package_interval, share)
    if "edgeworth" in tables:
        title = f"with the Edgeworth term for skewness (share {unseen.SHOWN_PART:g})"
        table(title, pop, names, args.draws, skew_corrected, unseen.SHOWN_PART)
    if "far" in tables:
        far_tables(pop, [*names, *coverage.RELEASED], args.draws, args.far)
    print(f"\ntime: {time.perf_counter() - started:.1f} s")


def table(title: str, pop, names: list[str], draws: int, make, share: float, widths=None) -> None:
    """One table of `make`'s cells at the near side's share `share` (SHOWN_PART, restored after)."""
    package = unseen.SHOWN_PART
    print(f"\n{title}:\n")
    print("| population | 5 / 10 / 30 per task |\n|---|---|")
    unseen.SHOWN_PART = share
    try:
        for name in names:
            print(f"| {name} | {row(pop, name, draws, make, None if widths is None else widths[name])} |", flush=True)
    finally:
        unseen.SHOWN_PART = package


def far_tables(pop, names: list[str], draws: int, factors: str) -> None:
    """The far side's t quantile times each factor, at shares FAR_SHARES, widths relative to the package's."""
    widths = {name: [cell(pop, name, n, draws, package_interval)[3] for n in SIZES] for name in names}
    for factor in (float(factor) for factor in factors.split(",")):
        for share in FAR_SHARES:
            mark = ", the package's" if share == unseen.SHOWN_PART else ""
            title = f"far side x {factor:g} (share {share:g}{mark})"
            table(title, pop, names, draws, far_factor(factor), share, widths)


def package_interval(figure, design: Design):
    return intervals.figure_interval(figure, design, 0.95, coverage.SCALE)


if __name__ == "__main__":
    main()
