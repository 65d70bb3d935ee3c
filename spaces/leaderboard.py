"""Leaderboard figures from the stored votes, computed with `longform_eval.metric.pairwise`.

The Arena table (`standings`: ranks with ranges, intervals, the judge beside the humans, the calibrated figure) comes
first; then human votes and the LLM judge's verdicts on the same comparisons, rated apart and labelled apart; the run
folders' own judge-based scores come beside them, each run named by model and benchmark (`run_names`). Every table
has a sentence above it that says what it shows, and why it is empty when it is (`board_text`). `compute_board`
makes all of it at once (seconds for 10,000 votes), which is why the app caches it (`board_cache.BoardCache`) and
never runs it in the vote handler.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from longform_eval.common.plurals import counted
from longform_eval.inference.benchmarks import create_benchmark
from longform_eval.inference.report.sections import sections_for
from longform_eval.metric.pairwise import (
    Battle,
    BradleyTerry,
    Outcome,
    bradley_terry,
    quality_control,
    swap,
    win_rate_matrix,
)
from longform_eval.metric.pairwise.agreement_intervals import annotator_agreement, rate_interval
from longform_eval.metric.pairwise.elo_intervals import elo_intervals
from longform_eval.metric.pairwise.ratings import MIN_BATTLES
from longform_eval.metric.uncertainty import Interval

from .board_text import (
    NO_JUDGE,
    NO_RUN_SCORES,
    NO_VOTES,
    arena_cells,
    arena_note,
    percent,
    table_note,
    unranked_note,
)
from .board_text import kappa as kappa_text
from .board_text import rating as rating_text
from .run_names import RunFile, display_names, model_name, read_run_file, run_file_pairs, run_name
from .safe_markdown import inert_text
from .standings import LABEL_SET, ONE_VOTE, Score, agreement_scores, human_battles, rating_score, standings
from .storage import OUTCOMES, Vote

JUDGE = "llm-judge"
RATING_HEADERS = ["model", "rank", "Elo [95% CI]", "Bradley-Terry [95% CI]", "battles"]
ANNOTATOR_HEADERS = ["annotator", "GSB", "z", "GSB flag", "gold misses", "gold flag", "disqualified"]
RUN_HEADERS = ["run (model · benchmark)", "judge", "score / wAvg", "unscored"]
# The gradio Dataframe datatype of each column: names and other text are shown as markdown escaped by `inert_text`
# (read from run folders and the vote store, they may hold anything), figures and flags as plain text.
TEXT, FIGURE = "markdown", "str"
RATING_TYPES = [TEXT, *[FIGURE] * 4]
ANNOTATOR_TYPES = [TEXT, *[FIGURE] * 6]
RUN_TYPES = [*[TEXT] * 3, FIGURE]
ARENA_TYPES = [FIGURE, FIGURE, TEXT, *[FIGURE] * 7]
HUMAN_NOTE = (
    "Human votes rated by Elo (K=4, 20 shuffles) and Bradley-Terry, each with its 95% bootstrap interval over the "
    f"battles; a model is ranked from {MIN_BATTLES} battles on (with fewer: no interval, no rank)."
)
JUDGE_NOTE = "The LLM judge's verdicts on the same comparisons, rated the same way (apart from the votes)."
ANNOTATOR_NOTE = "Quality control per annotator (GSB against the others, gold misses)."
RUN_NOTE = "The run folders' own scores, by their LLM judge (not by the votes)."


def judge_battles(votes: Sequence[Vote]) -> list[Battle]:
    """The LLM judge's verdict on each voted comparison it scored, in the frame shown to the voter."""
    return [
        Battle(v.model_a, v.model_b, Outcome(v.judge_outcome), JUDGE, v.item_id)
        for v in votes
        if v.judge_outcome in OUTCOMES
    ]


def canonical(vote: Vote) -> tuple[tuple[str, str, str], Outcome]:
    """The vote in a fixed frame (models sorted), so that votes shown in either order compare."""
    outcome = Outcome(vote.outcome)
    if vote.model_a > vote.model_b:
        return (vote.item_id, vote.model_b, vote.model_a), swap(outcome)
    return (vote.item_id, vote.model_a, vote.model_b), outcome


def ratings_table(battles: Sequence[Battle], bootstrap: int = 100, bt: BradleyTerry | None = None) -> list[list]:
    """One row per model: its rank (models with MIN_BATTLES battles and a finite fit, by Bradley-Terry), Elo (K=4, 20
    shuffles) and Bradley-Terry each with its 95% bootstrap interval (`bt`, when the battles' fit is at hand), and
    its battles; the unranked models below (by Elo), with why they have no interval."""
    if not battles:
        return []
    spans = elo_intervals(battles, bootstrap=bootstrap, seed=0)  # with the ratings (`elo_ratings`, seed 0)
    elo = spans.ratings
    bt = bt or bradley_terry(battles, bootstrap=bootstrap, seed=0)
    ranked = sorted((m for m in bt.models if bt.ranked(m)), key=lambda m: -(bt.ratings[m] or 0.0))
    unranked = sorted((m for m in bt.models if not bt.ranked(m)), key=lambda m: -elo[m])
    return [
        [
            model_name(m),
            ranked.index(m) + 1 if m in ranked else "-",
            rating_text(Score(elo[m], spans.lower[m], spans.upper[m], spans.reasons.get(m, ""))),
            rating_text(rating_score(bt, m)),
            bt.battles[m],
        ]
        for m in ranked + unranked
    ]


def annotator_table(battles: Sequence[Battle]) -> list[list]:
    return [
        [q.annotator, round(q.gsb, 3), round(q.z, 2), q.gsb_flag, q.gold_misses, q.gold_flag, q.disqualified]
        for q in (quality_control(battles) if battles else [])
    ]


def agreement_summary(votes: Sequence[Vote]) -> dict[str, Any]:
    """Counts, human-human agreement (every two annotators on the comparisons both voted, pooled; its interval over
    the comparisons), and the judge against the votes (agreement, Cohen's kappa, flip rate), each with its 95%
    interval (`Score`)."""
    labels: dict[str, dict] = defaultdict(dict)
    for vote in votes:
        key, outcome = canonical(vote)
        labels[vote.annotator][key] = outcome
    point, spread, why = annotator_agreement(labels)
    judged = [v for v in votes if v.judge_outcome in OUTCOMES]
    human_judge, kappa = agreement_scores(judged)
    return {
        "votes": len(votes),
        "judged": len(judged),
        "human_human": score_of_interval(point, spread, why or ONE_VOTE),
        "human_judge": human_judge,
        "judge_flip_rate": flip_rate(votes),
        "kappa": kappa,
    }


def flip_rate(votes: Sequence[Vote]) -> Score | None:
    """How often the judge changed its verdict when the answers were swapped, with its 95% interval (Wilson's: a
    share of 0/1 votes, in [0, 1])."""
    flips = np.array([float(v.judge_flipped) for v in votes if v.judge_flipped is not None])
    if not len(flips):
        return None
    return score_of_interval(float(flips.mean()), rate_interval(flips, np.ones(len(flips))), ONE_VOTE)


def score_of_interval(point: float | None, found: Interval | None, missing: str) -> Score | None:
    """`point` with its interval, or with why it has none."""
    if point is None:
        return None
    return Score(point, None, None, missing) if found is None else Score(point, found.low, found.high)


def summary_text(summary: dict[str, Any]) -> str:
    return (
        f"**{counted(summary['votes'], 'human vote')}** ({summary['judged']} with an LLM-judge verdict). Agreement "
        f"human-human: {percent(summary['human_human'])} (annotator pairs on the comparisons both voted); "
        f"human-judge: {percent(summary['human_judge'])} (Cohen's kappa {kappa_text(summary['kappa'])}; both on "
        f"{LABEL_SET}); judge flip rate: {percent(summary['judge_flip_rate'])}. "
        "Brackets: 95% intervals."
    )


def win_rate_figure(battles: Sequence[Battle], title: str = "human votes") -> Figure:
    """The win-rate matrix as a matplotlib Figure (no pyplot: no global figure list to leak, safe in threads)."""
    figure = Figure(figsize=(5.5, 4.5))
    axis = figure.add_subplot()
    if not battles:
        axis.text(0.5, 0.5, "no votes yet", ha="center", va="center")
        axis.axis("off")
        return figure
    models, matrix = win_rate_matrix(battles)
    models = [model_name(m) for m in models]  # named without the file paths their ids may carry
    image = axis.imshow(matrix, vmin=0, vmax=1, cmap="RdYlGn")
    # Names are drawn as they are, without mathtext: a name such as `$\alpha$` neither renders nor breaks the plot.
    axis.set_xticks(range(len(models)), models, rotation=45, ha="right", parse_math=False)
    axis.set_yticks(range(len(models)), models, parse_math=False)
    for i, j in itertools.product(range(len(models)), repeat=2):
        if matrix[i, j] == matrix[i, j]:  # not NaN
            axis.text(j, i, f"{matrix[i, j]:.2f}", ha="center", va="center", fontsize=8)
    axis.set_title(f"{title}: win rate of row over column (ties = half)")
    figure.colorbar(image, ax=axis)
    figure.tight_layout()
    return figure


def run_scores(files: Sequence[RunFile]) -> list[list]:
    """One row per run folder with a scores.json: its name (model · benchmark), judge (their display names where
    config.yaml gives them), and its benchmark's own headline figure (`Benchmark.headline`)."""
    rows = []
    for found in files:
        s = found.scores
        if s is None:
            continue
        checked = found.checked  # the headline is read from a scores.json that passed its checks only
        try:
            if checked is None:
                raise ValueError("scores.json fails its checks; `longform-eval report` names the field")
            headline, _ = sections_for(create_benchmark(checked.benchmark, checked.config)).headline(checked)
        except (KeyError, ValueError) as error:
            headline = f"unreadable ({error})"
        model, judge = display_names(found.folder)
        judge = None if s.get("judge") is None else model_name(judge or str(s["judge"]))
        rows.append([run_name(s, model), judge, headline, s.get("n_unscored")])
    return rows


@dataclass(frozen=True)
class Board:
    """Everything the Leaderboard tab shows, in the order of its components, and how many votes it counts."""

    votes: int
    summary: str
    arena_note: str
    arena: list[list]
    unranked: str
    heatmap: Figure
    human_note: str
    human: list[list]
    judge_note: str
    judge: list[list]
    annotators_note: str
    annotators: list[list]
    runs_note: str
    runs: list[list]

    def outputs(self) -> tuple:
        """What the tab shows: the tables' text cells escaped for their markdown columns."""
        return (
            self.summary,
            self.arena_note,
            shown(self.arena, ARENA_TYPES),
            self.unranked,
            self.heatmap,
            self.human_note,
            shown(self.human, RATING_TYPES),
            self.judge_note,
            shown(self.judge, RATING_TYPES),
            self.annotators_note,
            shown(self.annotators, ANNOTATOR_TYPES),
            self.runs_note,
            shown(self.runs, RUN_TYPES),
        )


def shown(rows: Sequence[Sequence], types: Sequence[str]) -> list[list]:
    """`rows` as a Dataframe with column `types` shows them: each cell of a TEXT column through `inert_text`."""
    return [[cell_shown(cell, kind) for cell, kind in zip(row, types, strict=True)] for row in rows]


def cell_shown(cell: Any, kind: str) -> Any:
    if kind != TEXT:
        return cell
    return "" if cell is None else inert_text(cell)


def compute_board(votes: Sequence[Vote], runs: Sequence[Path] = (), bootstrap: int = 100) -> Board:
    humans = human_battles(votes)
    labels = {m for v in votes for m in (v.model_a, v.model_b)}
    bt = bradley_terry(humans, bootstrap=bootstrap, seed=0) if humans else None
    files = [read_run_file(folder) for folder in runs]
    rows = standings(votes, run_file_pairs(files, labels), bootstrap=bootstrap, ratings=bt)
    human, judge = ratings_table(humans, bootstrap, bt), ratings_table(judge_battles(votes), bootstrap)
    annotators, scores = annotator_table(humans), run_scores(files)
    return Board(
        len(votes),
        summary_text(agreement_summary(votes)),
        arena_note(rows),
        arena_cells(rows),
        unranked_note(rows),
        win_rate_figure(humans),
        table_note(human, HUMAN_NOTE, NO_VOTES),
        human,
        table_note(judge, JUDGE_NOTE, NO_VOTES if not votes else NO_JUDGE),
        judge,
        table_note(annotators, ANNOTATOR_NOTE, NO_VOTES),
        annotators,
        table_note(scores, RUN_NOTE, NO_RUN_SCORES),
        scores,
    )
