"""Leaderboard figures from the stored votes, computed with `longform_eval.metric.pairwise`."""

from __future__ import annotations

import itertools
import json
from collections import defaultdict
from pathlib import Path

from longform_eval.inference.benchmarks import create_benchmark
from longform_eval.metric.pairwise import (
    Battle,
    Outcome,
    bradley_terry,
    elo_ratings,
    pairwise_agreement,
    quality_control,
    swap,
    win_rate_matrix,
)

from .storage import Vote


def battles_of(votes: list[Vote]) -> list[Battle]:
    return [Battle(v.model_a, v.model_b, Outcome(v.outcome), v.annotator, v.item_id) for v in votes]


def canonical(vote: Vote) -> tuple[tuple[str, str, str], Outcome]:
    """The vote in a fixed frame (models sorted), so that votes shown in either order compare."""
    outcome = Outcome(vote.outcome)
    if vote.model_a > vote.model_b:
        return (vote.item_id, vote.model_b, vote.model_a), swap(outcome)
    return (vote.item_id, vote.model_a, vote.model_b), outcome


def ratings_table(votes: list[Vote], bootstrap: int = 100) -> list[list]:
    battles = battles_of(votes)
    if not battles:
        return []
    elo = elo_ratings(battles)
    bt = bradley_terry(battles, bootstrap=bootstrap, seed=0)
    games = defaultdict(int)
    for b in battles:
        games[b.model_a] += 1
        games[b.model_b] += 1
    rows = [
        [m, round(elo[m], 1), round(bt.ratings[m], 1), round(bt.lower[m], 1), round(bt.upper[m], 1), games[m]]
        for m in bt.models
    ]
    return sorted(rows, key=lambda r: -r[2])


def annotator_table(votes: list[Vote]) -> list[list]:
    battles = battles_of(votes)
    if not battles:
        return []
    return [
        [q.annotator, round(q.gsb, 3), round(q.z, 2), q.gsb_flag, q.gold_misses, q.gold_flag, q.disqualified]
        for q in quality_control(battles)
    ]


def agreement_summary(votes: list[Vote]) -> dict[str, float | int | None]:
    labels: dict[str, dict] = defaultdict(dict)
    for vote in votes:
        key, outcome = canonical(vote)
        labels[vote.annotator][key] = outcome
    pairs = [pairwise_agreement(labels[a], labels[b]) for a, b in itertools.combinations(sorted(labels), 2)]
    pairs = [p for p in pairs if p is not None]
    judged = [v for v in votes if v.judge_outcome and v.judge_outcome != "unscored"]
    flips = [v.judge_flipped for v in votes if v.judge_flipped is not None]
    return {
        "votes": len(votes),
        "human_human": sum(pairs) / len(pairs) if pairs else None,
        "human_judge": sum(v.judge_outcome == v.outcome for v in judged) / len(judged) if judged else None,
        "judge_flip_rate": sum(flips) / len(flips) if flips else None,
    }


def win_rate_figure(votes: list[Vote]):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axis = plt.subplots(figsize=(5.5, 4.5))
    battles = battles_of(votes)
    if not battles:
        axis.text(0.5, 0.5, "no votes yet", ha="center", va="center")
        axis.axis("off")
        return figure
    models, matrix = win_rate_matrix(battles)
    image = axis.imshow(matrix, vmin=0, vmax=1, cmap="RdYlGn")
    axis.set_xticks(range(len(models)), models, rotation=45, ha="right")
    axis.set_yticks(range(len(models)), models)
    for i, j in itertools.product(range(len(models)), repeat=2):
        if matrix[i, j] == matrix[i, j]:  # not NaN
            axis.text(j, i, f"{matrix[i, j]:.2f}", ha="center", va="center", fontsize=8)
    axis.set_title("win rate of row over column (ties = half)")
    figure.colorbar(image, ax=axis)
    figure.tight_layout()
    return figure


def run_scores(runs: Path | None) -> list[list]:
    """One row per run folder: its benchmark's own headline figure (`Benchmark.headline`)."""
    rows = []
    for path in sorted(runs.glob("**/scores.json")) if runs and runs.is_dir() else []:
        s = json.loads(path.read_text(encoding="utf-8"))
        try:
            headline, _ = create_benchmark(s["benchmark"], s.get("config")).headline(s)
        except (KeyError, ValueError) as error:
            headline = f"unreadable ({error})"
        rows.append(
            [str(path.parent.relative_to(runs)), s.get("benchmark"), s.get("model"), s.get("judge"), headline]
            + [s.get("n_unscored")]
        )
    return rows
