"""The Arena table, as Chatbot Arena shows its leaderboard: pure functions of the votes (and of the judge-only
comparisons of the run folders, for the calibrated figure).

Per model: its human win rate (ties count half) over its votes with a 95% bootstrap interval; its rank and rank range
over the same resamples of the votes (`metric.uncertainty.rank_ranges`), once it has MIN_VOTES votes; its
Bradley-Terry rating with its interval; the LLM judge's win rate on the same comparisons, judge-human agreement
(Wilson's interval) and Cohen's kappa (bootstrap SE over the package's 2,000 seeded resamples of the votes) on the four
outcomes (AGREEMENT_LABELS), by the package's one `Agreement` (`metric.pairwise.agreement`, which `judge-agreement`,
`calibrate` and the metric use); and, from MIN_CALIBRATION_VOTES votes with a judge verdict, the prediction-powered
win rate (`metric.calibration.ppi_mean`, on the win rate's scale 0..1): the humans' labels, the judge's on those
comparisons, and the judge's on comparisons no human voted on (a pairwise run folder's own judged pairs). A win rate
of n of n (or 0 of n) votes has Wilson's one-sided bound, as an agreement of n of n has.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from longform_eval.metric.calibration import Estimate, ppi_mean
from longform_eval.metric.pairwise import Battle, BradleyTerry, Outcome, bradley_terry
from longform_eval.metric.pairwise.agreement import LABEL_SETS, agreement
from longform_eval.metric.pairwise.outcomes import score_for_a
from longform_eval.metric.uncertainty import Design, Figure, Interval, RankRange, intervals, mean, rank_ranges

from .records import OUTCOMES
from .storage import Vote

MIN_VOTES = 20  # a model is ranked from this many human votes on; with fewer it is listed below the table
MIN_CALIBRATION_VOTES = 30  # human votes with a judge verdict before a model's calibrated figure is shown
ROUNDS = 1000  # bootstrap resamples of the votes for the win-rate intervals and the rank ranges
AGREEMENT_LABELS = 4  # judge and votes compared on the four outcomes, as `calibrate` and the metric compare them
LABEL_SET = f"{AGREEMENT_LABELS} labels: {', '.join(LABEL_SETS[AGREEMENT_LABELS])}"
WIN_RATE = (0.0, 1.0)
SEED = 0
ALL_ALIKE = "all alike"
ONE_VOTE = "one vote"
KAPPA_UNDEFINED = "kappa undefined: a single label on both sides"


@dataclass(frozen=True)
class JudgedPair:
    """A comparison only the LLM judge saw (a pairwise run's own verdict): `outcome` in the frame A = model_a."""

    item_id: str
    model_a: str
    model_b: str
    outcome: str


@dataclass(frozen=True)
class Score:
    """A figure and its 95% interval; no bounds where the interval is undefined, `reason` saying why (e.g. every vote
    alike: the package gives no zero-width interval)."""

    point: float
    low: float | None
    high: float | None
    reason: str = ALL_ALIKE


@dataclass(frozen=True)
class Standing:
    """One model's row of the Arena table; `rank` is None for a model with fewer than MIN_VOTES votes."""

    model: str
    benchmarks: tuple[str, ...]
    votes: int
    win_rate: Score | None
    rank: RankRange | None
    rating: Score | None
    judged: int  # its votes with an LLM-judge verdict
    judge_win_rate: Score | None
    agreement: Score | None
    kappa: Score | None
    calibrated: Estimate | None


def human_battles(votes: Sequence[Vote]) -> list[Battle]:
    return [Battle(v.model_a, v.model_b, Outcome(v.outcome), v.annotator, v.item_id) for v in votes]


def value_for(model: str, model_a: str, model_b: str, outcome: str | None) -> float:
    """The comparison's win value for `model` (1 / 0.5 / 0), NaN when it is not in it or the outcome is no verdict."""
    if outcome not in OUTCOMES or model not in (model_a, model_b):
        return float("nan")
    score = score_for_a(Outcome(outcome))
    return score if model == model_a else 1.0 - score


def benchmark_of(item_id: str) -> str:
    """`benchmark:config` of an item key (`benchmark:config/sample id`)."""
    return item_id.split("/", 1)[0]


def pair_key(item_id: str, model_a: str, model_b: str) -> tuple[str, frozenset[str]]:
    return item_id, frozenset((model_a, model_b))


def standings(
    votes: Sequence[Vote],
    judge_only: Sequence[JudgedPair] = (),
    min_votes: int = MIN_VOTES,
    min_calibration: int = MIN_CALIBRATION_VOTES,
    rounds: int = ROUNDS,
    bootstrap: int = 100,
    ratings: BradleyTerry | None = None,
) -> list[Standing]:
    """Every voted model: the ranked ones by rank (then win rate), then the unranked ones by their vote count.
    `ratings`: the votes' Bradley-Terry fit when it is at hand (else fitted here, with `bootstrap` resamples)."""
    if not votes:
        return []
    models = sorted({m for v in votes for m in (v.model_a, v.model_b)})
    design = Design.simple(len(votes), unit="vote")
    human = {m: mean([value_for(m, v.model_a, v.model_b, v.outcome) for v in votes]) for m in models}
    judge = {m: mean([value_for(m, v.model_a, v.model_b, v.judge_outcome) for v in votes]) for m in models}
    rates = {**human, **{f"judge {m}": f for m, f in judge.items()}}
    found = intervals(rates, design, rounds, SEED, bounds=dict.fromkeys(rates, WIN_RATE))
    theirs = {m: [v for v in votes if m in (v.model_a, v.model_b)] for m in models}
    ranked = [m for m in models if len(theirs[m]) >= min_votes]
    ranks = rank_ranges({m: human[m] for m in ranked}, design, rounds, SEED) if ranked else {}
    bt = ratings or bradley_terry(human_battles(votes), bootstrap, SEED)
    voted = {pair_key(v.item_id, v.model_a, v.model_b) for v in votes}
    rest = [p for p in judge_only if pair_key(p.item_id, p.model_a, p.model_b) not in voted]
    rows = []
    for m in models:
        mine = theirs[m]
        judged = [v for v in mine if v.judge_outcome in OUTCOMES]
        agreed, kappa = agreement_scores(judged)
        rows.append(
            Standing(
                model=m,
                benchmarks=tuple(sorted({benchmark_of(v.item_id) for v in mine})),
                votes=len(mine),
                win_rate=score_of(human[m], found[m]),
                rank=ranks.get(m),
                rating=rating_score(bt, m),
                judged=len(judged),
                judge_win_rate=score_of(judge[m], found[f"judge {m}"]),
                agreement=agreed,
                kappa=kappa,
                calibrated=calibrated(m, judged, rest, min_calibration),
            )
        )
    return sorted(rows, key=order)


def rating_score(bt: BradleyTerry, model: str) -> Score | None:
    """A model's Bradley-Terry rating and interval, or why it has none (None: no finite rating)."""
    rating = bt.ratings[model]
    if rating is None:
        return None
    return Score(rating, bt.lower[model], bt.upper[model], bt.reasons.get(model, ALL_ALIKE))


def score_of(figure: Figure, found: Interval | None) -> Score | None:
    point = figure.point()
    if point is None:
        return None
    return Score(point, None, None) if found is None else Score(point, found.low, found.high)


def agreement_scores(judged: Sequence[Vote]) -> tuple[Score | None, Score | None]:
    """Judge-human agreement and Cohen's kappa over `judged` (votes with a judge verdict, both in the frame shown to
    the voter) on AGREEMENT_LABELS labels, each with its 95% interval over the votes (`metric.pairwise.agreement`,
    the package's one `Agreement`); None where undefined, a Score without bounds (and why) where it has none."""
    human, judge = [v.outcome for v in judged], [v.judge_outcome for v in judged]
    if not judged:
        return None, None
    found = agreement(human, judge, AGREEMENT_LABELS, unit="vote", seed=SEED)
    return (
        bounded(found.agreement, found.agreement_interval, found.reasons.get("agreement", ONE_VOTE)),
        bounded(found.cohen_kappa, found.kappa_interval, found.reasons.get("cohen_kappa", KAPPA_UNDEFINED)),
    )


def bounded(point: float | None, spread: Interval | None, missing: str) -> Score | None:
    """`point` with its interval; without one, the reason."""
    if point is None:
        return None
    return Score(point, None, None, missing) if spread is None else Score(point, spread.low, spread.high)


def order(row: Standing) -> tuple:
    if row.rank is None:
        return (1, 0, -row.votes, row.model)
    return (0, row.rank.rank, -(row.win_rate.point if row.win_rate else 0.0), row.model)


def calibrated(model: str, judged: Sequence[Vote], rest: Sequence[JudgedPair], minimum: int) -> Estimate | None:
    """The PPI++ win rate of `model`: its votes with a judge verdict (human and judge labels of the same comparisons)
    and the judge's labels on its comparisons no human voted on; None below `minimum` votes or two judge-only ones."""
    others = [p for p in rest if model in (p.model_a, p.model_b) and p.outcome in OUTCOMES]
    if len(judged) < minimum or len(others) < 2:
        return None
    human = [value_for(model, v.model_a, v.model_b, v.outcome) for v in judged]
    judge_on_human = [value_for(model, v.model_a, v.model_b, v.judge_outcome) for v in judged]
    judge_on_rest = [value_for(model, p.model_a, p.model_b, p.outcome) for p in others]
    try:
        found = ppi_mean(
            human,
            judge_on_human,
            judge_on_rest,
            clusters=[v.item_id for v in judged],
            rest_clusters=[p.item_id for p in others],
            scale=WIN_RATE,
        )
    except ValueError:
        return None
    return found if np.isfinite(found.se) else None  # one item on a side: no variance, no interval
