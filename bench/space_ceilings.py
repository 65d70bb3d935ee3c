"""The pairwise metric Space's ceilings against its time limit: the largest requests they allow, timed.

Every ceiling of the pairwise metric's Space (`metric.space_limits`: `bootstrap_rounds`, `bootstrap_work` = rounds x
comparisons, `bootstrap_models` = rounds x models, `models`, and `entries` for the comparisons) must let the
computation finish well inside the Space's time limit (`space_app.COMPUTE_SECONDS`) on the smallest hardware a Space
runs on (2 vCPU). This times the pairwise metric's compute (agreement and kappa with its interval, Elo, then
Bradley-Terry with its bootstrap) at the corners of what the ceilings allow:

- the card's own 8 comparisons at the most rounds, and the most comparisons without models (no rating);
- with M models, the most rounds M allows, with as many comparisons as rounds x comparisons then leaves;
- with M models, the most comparisons, with as many rounds as the two budgets leave;

M for each shape of battles: 2 models, one winning 99 in 100 (a fit that needs many iterations); 10 models of mixed
outcomes; 20 and the most models with strengths spread over 12 log-odds units (steep) and over 3. Every request runs
as the Space runs it: checked against the ceilings, then computed in a forked process of its own
(`space_serving.run_limited`, BLAS_THREADS BLAS threads), stopped at the time limit. Each is timed alone, then two
copies at once (a Space computes two requests at a time; the slower is shown). Prints one line per request and the
worst; exits 1 when one takes over --target seconds. Record the output in bench/RESULTS.md with the machine and its
load: on a shared machine the figures move several-fold with the load.

--before first times the largest requests of the ceilings before issue 46 (bootstrap_rounds up to 10,000, nothing
else bounded): the card's 8 comparisons, 2,000 comparisons of 20 models and 20,000 of 100 models, at 10,000 rounds.
--blas-threads N computes with N BLAS threads instead of the Space's one.

Run: python bench/space_ceilings.py [--target 20] [--only SHAPE ...] [--before] [--blas-threads N]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

import evaluate

from longform_eval.metric import space_serving
from longform_eval.metric.space_app import COMPUTE_SECONDS, computed, in_memory, parsed_arguments
from longform_eval.metric.space_limits import CEILINGS, limit_of
from longform_eval.metric.space_serving import BLAS_THREADS, TimeLimitExceeded, run_limited

PAIRWISE = Path(__file__).resolve().parents[1] / "metric" / "pairwise" / "pairwise.py"
TARGET_S = 20.0  # well inside COMPUTE_SECONDS: two such requests at once on 2 vCPUs still finish
Comparisons = tuple[list[str], list[str], list[str]]  # predictions, model_a, model_b


def card(count: int, models: int = 2) -> Comparisons:
    """The card's example, repeated: gpt against llama, 3 A for 1 B."""
    return ["B" if i % 4 == 3 else "A" for i in range(count)], ["gpt"] * count, ["llama"] * count


def unrated(count: int, models: int = 0) -> Comparisons:
    """Labels against references only (agreement and kappa with its bootstrap, no ratings): seeded, all four."""
    rng = random.Random(0)
    return [rng.choice(["A", "B", "equally_good", "equally_bad"]) for _ in range(count)], [], []


def lopsided(count: int, models: int = 2) -> Comparisons:
    """Two models, the first winning 99 comparisons in 100."""
    return ["B" if i % 100 == 0 else "A" for i in range(count)], ["x"] * count, ["y"] * count


def mixed(count: int, models: int = 10) -> Comparisons:
    """Random pairs of `models`, the four outcomes equally likely (seeded)."""
    rng = random.Random(0)
    names = [f"model-{i}" for i in range(models)]
    pairs = [rng.sample(names, 2) for _ in range(count)]
    labels = [rng.choice(["A", "B", "equally_good", "equally_bad"]) for _ in range(count)]
    return labels, [a for a, _ in pairs], [b for _, b in pairs]


def spread(steepness: float) -> Callable[[int, int], Comparisons]:
    """Random pairs of `models` whose Bradley-Terry strengths are spread evenly over `steepness` log-odds units,
    one comparison in five a tie (seeded)."""

    def comparisons(count: int, models: int) -> Comparisons:
        rng = random.Random(0)
        strength = [steepness * i / models for i in range(models)]
        labels, model_a, model_b = [], [], []
        for _ in range(count):
            a, b = rng.sample(range(models), 2)
            win = 1.0 / (1.0 + math.exp(strength[b] - strength[a]))
            tie = rng.random() < 0.2
            labels.append("equally_good" if tie else ("A" if rng.random() < win else "B"))
            model_a.append(f"model-{a}")
            model_b.append(f"model-{b}")
        return labels, model_a, model_b

    comparisons.__name__ = f"spread over {steepness:g}"
    return comparisons


def requests(shapes: list[str] | None) -> list[tuple[str, Callable[[int, int], Comparisons], int, int, int]]:
    """(shape, maker, comparisons, models, rounds) at the corners of what the ceilings allow."""
    most_rounds, work, model_work = (
        limit_of(name) for name in ("bootstrap_rounds", "bootstrap_work", "bootstrap_models")
    )
    most_models, most_rows = limit_of("models"), limit_of("entries")
    makers = {
        "lopsided": (lopsided, 2),
        "mixed": (mixed, 10),
        "steep-20": (spread(12.0), 20),
        "spread-20": (spread(3.0), 20),
        "steep-most": (spread(12.0), most_models),
        "spread-most": (spread(3.0), most_models),
    }
    chosen = [("card", card, 8, 2, min(most_rounds, model_work // 2)), ("unrated", unrated, most_rows, 0, 0)]
    for name, (maker, models) in makers.items():
        rounds = min(most_rounds, model_work // models)  # the most rounds these models allow
        chosen.append((name, maker, min(most_rows, work // rounds), models, rounds))
        chosen.append((name, maker, most_rows, models, min(rounds, work // most_rows)))
    return [request for request in chosen if not shapes or request[0] in shapes]


def timed(module: evaluate.EvaluationModule, comparisons: Comparisons, rounds: int) -> tuple[float, str]:
    """Seconds the Space takes to answer (its checks, then the computation in a forked process), and how it ended."""
    labels, model_a, model_b = comparisons
    others = {"model_a": model_a, "model_b": model_b} if model_a else {}
    others["bootstrap_rounds"] = rounds
    texts = [json.dumps(labels), json.dumps(labels), json.dumps(others)]
    began = time.perf_counter()
    inputs, extra = parsed_arguments(["predictions", "references"], ["model_a", "model_b", "bootstrap_rounds"], texts)
    try:
        result = run_limited(lambda: computed(in_memory(module), inputs, extra), COMPUTE_SECONDS, "pairwise compute")
    except TimeLimitExceeded:
        return time.perf_counter() - began, f"stopped at {COMPUTE_SECONDS:g} s"
    seconds = time.perf_counter() - began
    ranked = sum(1 for key, value in result.items() if key.startswith("bt_") and key.endswith("_lower") and value)
    return seconds, f"{ranked} rating intervals" if model_a else f"kappa {result['cohen_kappa']:.3f}"


def two_at_once(module: evaluate.EvaluationModule, comparisons: Comparisons, rounds: int) -> float:
    """Seconds the slower of two copies of a request takes, sent at once."""
    with ThreadPoolExecutor(2) as pool:
        answers = [pool.submit(timed, module, comparisons, rounds) for _ in range(2)]
        return max(answer.result()[0] for answer in answers)


def before(module: evaluate.EvaluationModule) -> None:
    """The worst requests of the ceilings before issue 46, timed with those ceilings in place."""
    kept = dict(CEILINGS)
    unbounded = 10**12
    CEILINGS.update({name: replace(CEILINGS[name], limit=unbounded) for name in ("bootstrap_work", "bootstrap_models")})
    CEILINGS.update(
        bootstrap_rounds=replace(CEILINGS["bootstrap_rounds"], limit=10_000),
        models=replace(CEILINGS["models"], limit=unbounded),
    )
    try:
        print("before (bootstrap_rounds at most 10,000, nothing else bounded):")
        worst = (("card", card, 8, 2), ("steep-20", spread(12.0), 2_000, 20), ("spread-most", spread(3.0), 20_000, 100))
        for shape, maker, count, models in worst:
            seconds, answer = timed(module, maker(count, models), 10_000)
            print(f"{shape:<12} {count:>11,} {models:>6} {10_000:>6,} {seconds:>8.2f} {'-':>9}  {answer}", flush=True)
    finally:
        CEILINGS.clear()
        CEILINGS.update(kept)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--target", type=float, default=TARGET_S, help="seconds a request may take (default 20)")
    parser.add_argument(
        "--only",
        nargs="*",
        help="shapes to time: card unrated lopsided mixed steep-20 spread-20 steep-most spread-most",
    )
    parser.add_argument("--before", action="store_true", help="first time the worst requests of the old ceilings")
    parser.add_argument("--blas-threads", type=int, default=BLAS_THREADS, help="BLAS threads of a computation")
    args = parser.parse_args(argv)
    space_serving.BLAS_THREADS = args.blas_threads
    names = ("bootstrap_rounds", "bootstrap_work", "bootstrap_models", "models")
    ceilings = ", ".join(f"{name} {CEILINGS[name].limit:,}" for name in names)
    limits = f"time limit {COMPUTE_SECONDS:g} s, target {args.target:g} s"
    print(f"ceilings: {ceilings}, entries {limit_of('entries'):,}; {limits}")
    print(f"machine: {os.cpu_count()} cores, load average {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"BLAS threads per computation: {args.blas_threads}")
    module = evaluate.load(str(PAIRWISE))
    worst = 0.0
    print(f"{'shape':<12} {'comparisons':>11} {'models':>6} {'rounds':>6} {'alone s':>8} {'2 at once':>9}  answer")
    if args.before:
        before(module)
        print("now:")
    for shape, maker, count, models, rounds in requests(args.only):
        comparisons = maker(count, models)
        seconds, answer = timed(module, comparisons, rounds)
        paired = two_at_once(module, comparisons, rounds)
        worst = max(worst, seconds, paired)
        mark = "" if max(seconds, paired) <= args.target else f"  OVER {args.target:g} s"
        row = f"{shape:<12} {count:>11,} {models:>6} {rounds:>6,} {seconds:>8.2f} {paired:>9.2f}"
        print(f"{row}  {answer}{mark}", flush=True)
    print(f"worst: {worst:.2f} s (target {args.target:g} s; the Space stops a request at {COMPUTE_SECONDS:g} s)")
    print(f"load average after: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0 if worst <= args.target else 1


if __name__ == "__main__":
    sys.exit(main())
