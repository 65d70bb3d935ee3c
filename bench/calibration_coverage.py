"""Human-calibrated figures (issue 31, "Validated"): how often each 95% interval covers the humans' figure.

1. Simulation with known truth (`metric.calibration.simulation`): a population whose human win rate is 0.45 and a
   judge that gives the human verdict half the time and otherwise prefers the longer answer 70% of the time (the
   model's answer is the longer one 75% of the time): 2,000 judged comparisons, human labels on a random 50 / 100 /
   200 of them; 1,000 seeds per cell.
2. PandaLM's test set (`../shared/data/pandalm`, read with `inference.runner.judge_agreement`'s readers): 999 items,
   each with three human labels and the released verdicts of GPT-3.5 and PandaLM-7B. Truth: the win rate of the
   first response from the three-annotator majority on all items (no majority: a tie, 0.5); the judge's verdicts on
   all items (an unusable released verdict counts as a tie) plus the majority label on a random subset of 50 / 100 /
   200 items; 1,000 subsets per cell. Overall, since each of the 10 model pairs has only 89-111 items; and per pair
   with 30 labelled items (a third of the pair's items, so the intervals, made for a sample from a large
   population, are conservative there).

Each cell: coverage of the truth by the judge-only, human-only and PPI++ intervals, their mean widths (points of win
rate), and PPI++'s mean lam (an interval that is absent, on labels without spread, counts as a miss).

3. `--ppi-python`: the largest difference of PPI++'s bounds to ppi-python's `ppi_mean_ci` (its variances divide by n,
   ours by n - 1; the estimates and lam are the same): win rates (0 / 0.5 / 1), a judge that copies the human label
   70% of the time, 1,000 draws at 25 + 500 and 100 + 2,000 labels.

Run: python bench/calibration_coverage.py [--seeds 1000] [--ppi-python]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

from longform_eval.metric.calibration import classical_mean, ppi_mean, win_value
from longform_eval.metric.calibration.simulation import simulate

PANDALM = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "pandalm"
SIZES = (50, 100, 200)
TIE = {"A": 1.0, "B": 0.0, "tie": 0.5}


def cell(judge_all: np.ndarray, human_all: np.ndarray, labelled_sets, truth: float) -> dict[str, float]:
    """Coverage and width of each interval over the labelled subsets (indices into the unit arrays)."""
    hits, widths, lams = defaultdict(int), defaultdict(list), []
    judge_only = classical_mean(judge_all, "judge-only")
    for labelled in labelled_sets:
        rest = np.ones(len(judge_all), dtype=bool)
        rest[labelled] = False
        found = {
            "judge-only": judge_only,
            "human-only": classical_mean(human_all[labelled], "human-only"),
            "ppi++": ppi_mean(human_all[labelled], judge_all[labelled], judge_all[rest]),
        }
        lams.append(found["ppi++"].lam)
        for name, estimate in found.items():
            if estimate.low is None or estimate.high is None:
                continue
            hits[name] += estimate.low <= truth <= estimate.high
            widths[name].append(100 * (estimate.high - estimate.low))
    runs = len(labelled_sets)
    return (
        {f"{k} coverage": hits[k] / runs for k in hits}
        | {f"{k} width": float(np.mean(widths[k])) for k in widths}
        | {"lam": float(np.mean(lams))}
    )


def simulation(seeds: int) -> list[tuple[str, dict]]:
    rows = []
    for size in SIZES:
        hits, widths, lams = defaultdict(int), defaultdict(list), []
        for seed in range(seeds):
            sim = simulate(n_items=2000, n_human=size, seed=seed)
            ids = list(sim.judge)
            judge_all = np.array([win_value(sim.judge[i]) for i in ids])
            index = {item: k for k, item in enumerate(ids)}
            human = np.full(len(ids), np.nan)
            for item, outcome in sim.human.items():
                human[index[item]] = win_value(outcome)
            found = cell(judge_all, human, [np.array(sorted(index[i] for i in sim.human))], sim.truth)
            for name in ("judge-only", "human-only", "ppi++"):
                hits[name] += found[f"{name} coverage"]
                widths[name].append(found[f"{name} width"])
            lams.append(found["lam"])
        summary = {f"{k} coverage": hits[k] / seeds for k in hits} | {
            f"{k} width": float(np.mean(v)) for k, v in widths.items()
        }
        rows.append((f"simulated, {size} human labels of 2,000 (truth 45.0)", summary | {"lam": float(np.mean(lams))}))
    return rows


def pandalm_units(folder: Path) -> tuple[list[str], np.ndarray, dict[str, np.ndarray], list[str]]:
    """(item ids, the majority's win value per item, each released judge's win value per item, each item's pair)."""
    from longform_eval.inference.runner.judge_agreement import read_items, released_verdicts

    items = read_items(folder)
    pairs = {str(r["idx"]): r["cmp_key"] for r in json.loads((folder / "testset-v1.json").read_text())}
    ids = [item.pair.id for item in items]
    human = np.array([TIE[item.majority or "tie"] for item in items])
    judges = {
        name.removesuffix(" (released)"): np.array(
            [TIE.get(verdicts.get(i) if isinstance(verdicts.get(i), str) else "tie", 0.5) for i in ids]
        )
        for name, verdicts in released_verdicts(folder).items()
    }
    return ids, human, judges, [pairs[i] for i in ids]


def pandalm(subsets: int) -> list[tuple[str, dict]]:
    ids, human, judges, pairs = pandalm_units(PANDALM)
    rng = np.random.default_rng(0)
    rows = []
    for judge, values in judges.items():
        for size in SIZES:
            chosen = [rng.choice(len(ids), size=size, replace=False) for _ in range(subsets)]
            found = cell(values, human, chosen, float(human.mean()))
            rows.append((f"PandaLM {judge}, {size} human labels of 999 (truth {100 * human.mean():.1f})", found))
        per_pair = defaultdict(list)
        for pair in sorted(set(pairs)):
            members = np.array([k for k, p in enumerate(pairs) if p == pair])
            chosen = [rng.choice(len(members), size=30, replace=False) for _ in range(subsets)]
            found = cell(values[members], human[members], chosen, float(human[members].mean()))
            for key, value in found.items():
                per_pair[key].append(value)
        summary = {key: float(np.mean(v)) for key, v in per_pair.items()}
        summary |= {f"{k} min": float(np.min(per_pair[f"{k} coverage"])) for k in ("judge-only", "human-only", "ppi++")}
        rows.append((f"PandaLM {judge}, per pair (10 pairs, 30 human labels of 89-111; mean over pairs)", summary))
    return rows


def ppi_python_difference(draws: int = 1000) -> list[str]:
    """The largest |our bound - ppi-python's bound| over `draws` samples, at two sizes."""
    import ppi_py

    rng = np.random.default_rng(0)
    lines = []
    for n, big_n in ((25, 500), (100, 2000)):
        worst = 0.0
        for _ in range(draws):
            truth = rng.choice([0.0, 0.5, 1.0], size=n + big_n, p=[0.3, 0.2, 0.5])
            judge = np.where(rng.random(n + big_n) < 0.7, truth, rng.choice([0.0, 0.5, 1.0], size=n + big_n))
            ours = ppi_mean(truth[:n], judge[:n], judge[n:])
            if ours.low is None or ours.high is None:
                continue
            low, high = ppi_py.ppi_mean_ci(truth[:n], judge[:n], judge[n:], alpha=0.05)
            worst = max(worst, abs(ours.low - float(low[0])), abs(ours.high - float(high[0])))
        lines.append(f"{n} human + {big_n} judge-only labels: bounds differ by at most {worst:.4f} ({draws} draws)")
    return lines


def table(rows: list[tuple[str, dict]]) -> list[str]:
    lines = [
        "| cell | judge-only coverage | human-only coverage | PPI++ coverage | judge-only width | human-only width | "
        "PPI++ width | mean lam |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, found in rows:
        cover = [
            f"{100 * found[f'{k} coverage']:.1f}%"
            + (f" (min {100 * found[f'{k} min']:.0f}%)" if f"{k} min" in found else "")
            for k in ("judge-only", "human-only", "ppi++")
        ]
        width = [f"{found[f'{k} width']:.1f}" for k in ("judge-only", "human-only", "ppi++")]
        lines.append(f"| {name} | {' | '.join(cover)} | {' | '.join(width)} | {found['lam']:.2f} |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=1000, help="seeds per simulated cell and subsets per PandaLM cell")
    parser.add_argument("--ppi-python", action="store_true", help="only the difference to ppi-python's bounds")
    args = parser.parse_args()
    start = time.perf_counter()
    if args.ppi_python:
        print("\n".join(ppi_python_difference()))
        return
    rows = simulation(args.seeds) + pandalm(args.seeds)
    print(
        f"{time.strftime('%Y-%m-%d')}, {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}"
    )
    print("\n".join(table(rows)))
    print(f"\nwidths: points of win rate (0..100), 95% intervals; {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
