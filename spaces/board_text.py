"""The Arena table's cells and the sentences of the Leaderboard tab: the rules above each table, and why a table is
empty whenever it is.
"""

from __future__ import annotations

from collections.abc import Sequence

from longform_eval.common.plurals import counted
from longform_eval.metric.calibration import Estimate
from longform_eval.metric.uncertainty.label_agreement import RESAMPLES

from .run_names import named
from .safe_markdown import inert_text
from .standings import AGREEMENT_LABELS, LABEL_SET, MIN_CALIBRATION_VOTES, MIN_VOTES, ROUNDS, Score, Standing

ARENA_HEADERS = [
    "rank",
    "rank range",
    "model · benchmark",
    "votes",
    "human win rate [95% CI]",
    "Bradley-Terry [95% CI]",
    "judge win rate [95% CI]",
    f"judge-human agreement ({AGREEMENT_LABELS} labels) [95% CI]",
    f"Cohen's kappa ({AGREEMENT_LABELS} labels) [95% CI]",
    "calibrated win rate (PPI++) [95% CI]",
]
NO_VOTES = "No human votes yet: vote in the Arena tab."
SET_JUDGE = "set the Space's variable `LONGFORM_EVAL_JUDGE` to `BACKEND:MODEL` (locally: `--judge BACKEND:MODEL`)"
NO_JUDGE = f"No LLM-judge verdict on the voted comparisons yet: {SET_JUDGE} and every vote is judged too."
NO_JUDGE_CONFIGURED = f"No LLM judge is configured: {SET_JUDGE} to have every vote judged too."
NO_RUN_SCORES = (
    "No run folder with a scores.json: score a run (`longform-eval score RUN`) and add it to the Space's variable "
    "`LONGFORM_EVAL_RUNS` (locally: `--runs`)."
)


def percent(score: Score | Estimate | None) -> str:
    if isinstance(score, Estimate):
        score = Score(score.estimate, score.low, score.high, score.reason or "no spread")
    return figure(score, 100, ".1f", "%")


def rating(score: Score | None) -> str:
    return figure(score, 1, ".0f")


def kappa(score: Score | None) -> str:
    return figure(score, 1, ".2f")


def figure(score: Score | None, scale: float, form: str, unit: str = "") -> str:
    """`score` as `point [low, high]` (scaled, formatted with `form`), or with why it has no interval; "-" for none."""
    if score is None:
        return "-"
    point = f"{format(scale * score.point, form)}{unit}"
    if score.low is None or score.high is None:
        return f"{point} [no interval: {score.reason}]"
    return f"{point} [{format(scale * score.low, form)}, {format(scale * score.high, form)}]"


def rank_range(row: Standing) -> str:
    if row.rank is None:
        return "-"
    return str(row.rank.best) if row.rank.best == row.rank.worst else f"{row.rank.best}–{row.rank.worst}"


def arena_cells(rows: Sequence[Standing]) -> list[list]:
    """The ranked models' rows of the Arena table, in ARENA_HEADERS' order (names as text, the rest as figures)."""
    return [
        [
            row.rank.rank,
            rank_range(row),
            named(row.model, row.benchmarks),
            row.votes,
            percent(row.win_rate),
            rating(row.rating),
            percent(row.judge_win_rate),
            percent(row.agreement),
            kappa(row.kappa),
            percent(row.calibrated),
        ]
        for row in rows
        if row.rank is not None
    ]


def arena_note(rows: Sequence[Standing]) -> str:
    """The sentences above the Arena table: its rules, and why it is empty or has no calibrated figure."""
    rule = (
        f"A model is ranked once it has **at least {MIN_VOTES} human votes**; models with fewer are listed below the "
        "table with their vote count. Ranked by the human win rate (ties count half); the rank range is the span of "
        f"ranks the model takes over the middle 95% of {ROUNDS} bootstrap resamples of the votes (as Chatbot Arena "
        "shows it). Every score has its 95% interval in brackets. The judge's win rate is the LLM judge's verdict on "
        f"the same comparisons; agreement and Cohen's kappa compare it with the votes on {LABEL_SET} (agreement: "
        f"Wilson's score interval; kappa: its bootstrap SE over {RESAMPLES} resamples of the model's votes with a "
        "judge verdict, the interval cut to [-1, 1]). The calibrated win "
        "rate (prediction-powered inference, PPI++) adds the judge's verdicts on comparisons no human voted on (the "
        "pairwise run folders' own judged pairs) and corrects them by the votes, once a model has "
        f"**{MIN_CALIBRATION_VOTES} votes with a judge verdict** and two judge-only comparisons."
    )
    if not rows:
        return f"{NO_VOTES} {rule}"
    ranked = [row for row in rows if row.rank is not None]
    if not ranked:
        return f"**No model is ranked yet: fewer than {MIN_VOTES} human votes per model.** {rule}"
    if not any(row.calibrated for row in ranked):
        return f"{rule} {no_calibration(ranked)}"
    return rule


def no_calibration(rows: Sequence[Standing]) -> str:
    if not any(row.judged for row in rows):
        return f"No calibrated figure: {NO_JUDGE[0].lower()}{NO_JUDGE[1:]}"
    if all(row.judged < MIN_CALIBRATION_VOTES for row in rows):
        return f"No calibrated figure yet: fewer than {MIN_CALIBRATION_VOTES} votes with a judge verdict per model."
    return "No calibrated figure: no judge-only comparison of these models (a judged pairwise run folder gives them)."


def unranked_note(rows: Sequence[Standing]) -> str:
    """The models below the table: each with its vote count."""
    waiting = [row for row in rows if row.rank is None]
    if not waiting:
        return ""
    listed = ", ".join(
        f"{inert_text(named(row.model, row.benchmarks))} ({counted(row.votes, 'vote')})" for row in waiting
    )
    return f"**Unranked** (fewer than {MIN_VOTES} human votes): {listed}."


def table_note(rows: Sequence, what: str, empty: str) -> str:
    """What a table shows, or why it is empty."""
    return what if rows else f"{what} {empty}"
