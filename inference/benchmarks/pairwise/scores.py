"""scores.json of a pairwise run: the model against its baseline, overall and per group, rated four ways.

Rates are fractions (0..1). Win rate counts both ties as half a win (the rule of Elo, Bradley-Terry and the
length-controlled win rate); `tencent_win_rate` is TencentLLMEval's formula, which gives nothing for "equally bad".
Elo: K = 4, start 1000, mean over 20 seeded shuffles; Bradley-Terry and style-controlled Bradley-Terry: seeded
bootstrap 95% intervals; length-controlled win rate: the alpaca_eval 2.0 GLM without the difficulty term (one
model, one baseline; `longform-eval report` adds it when several models meet one baseline).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from longform_eval.common.plurals import counted
from longform_eval.metric import Unscored
from longform_eval.metric.longbench_write.scoring import count_length
from longform_eval.metric.pairwise import (
    Battle,
    Outcome,
    StyleFeatures,
    bradley_terry,
    elo_ratings,
    flip_rate,
    length_controlled_win_rates,
    outcome_rates,
    style_controlled_bradley_terry,
    style_features,
)
from longform_eval.metric.pairwise.length_control import FOLDS as LC_FOLDS
from longform_eval.metric.pairwise.uncertainty import WIN_VALUE, pairwise_figures
from longform_eval.metric.uncertainty.groups import as_dicts, group_intervals, group_method

from .calls import FIRST, SECOND, ItemVerdict

ELO = {"k": 4.0, "rounds": 20, "seed": 0}
BOOTSTRAP = {"bootstrap": 100, "seed": 0}
MODEL, BASELINE = "model", "baseline"


@dataclass(frozen=True)
class JudgedItem:
    id: str
    groups: dict[str, str]
    verdict: ItemVerdict
    answer: str
    baseline: str


def answer_style(text: str) -> dict[str, int]:
    """Style counts of an answer; tokens are CJK characters + English words, so that Chinese answers count too."""
    return asdict(style_features(text, count_tokens=count_length))


def group_figures(items: list[JudgedItem]) -> dict[str, Any]:
    scored = [i.verdict.outcome for i in items if not isinstance(i.verdict.outcome, Unscored)]
    figures: dict[str, Any] = asdict(outcome_rates(scored)) if scored else {"n": 0}
    figures["n_unscored"] = len(items) - len(scored)
    orders = [(i.verdict.parts[FIRST], i.verdict.parts[SECOND]) for i in items if SECOND in i.verdict.parts]
    if orders:
        judged = [(Outcome(a), Outcome(b)) for a, b in orders if a is not None and b is not None]
        figures["flip_rate"] = flip_rate(judged)
    return figures


def win_values(items: list[JudgedItem]) -> np.ndarray:
    """Per question: 1 (the model's answer better), 0.5 (a tie), 0 (the baseline's), NaN where unscored."""
    outcomes = [item.verdict.outcome for item in items]
    return np.array([np.nan if isinstance(o, Unscored) else WIN_VALUE[Outcome(o)] for o in outcomes])


def with_intervals(items: list[JudgedItem]) -> dict[str, Any]:
    """A group's figures with the 95% intervals of its win rate and GSB over its questions (None: one question)."""
    found = group_intervals(pairwise_figures(win_values(items)), unit="question")
    return group_figures(items) | {"intervals": as_dicts(found)}


def by_group(items: list[JudgedItem], fields: tuple[str, ...]) -> dict[str, dict[str, dict[str, Any]]]:
    """Figures per value of each field; a field after the first is keyed `first / field` (a task within its area)."""
    result = {}
    for depth, field in enumerate(fields):
        grouped: dict[str, list[JudgedItem]] = defaultdict(list)
        for item in items:
            grouped[" / ".join(item.groups[f] for f in fields[: depth + 1])].append(item)
        result[field] = {name: with_intervals(members) for name, members in sorted(grouped.items())}
    return result


def ratings(battles: list[Battle], styles: list[tuple]) -> dict[str, Any]:
    """Elo, Bradley-Terry and style-controlled Bradley-Terry of the model and its baseline."""
    bt = bradley_terry(battles, **BOOTSTRAP)
    styled = style_controlled_bradley_terry(battles, styles, **BOOTSTRAP)
    return {
        "elo": elo_ratings(battles, **ELO),
        "bradley_terry": {
            m: {"rating": bt.ratings[m], "lower": bt.lower[m], "upper": bt.upper[m]}
            | ({"note": bt.reasons[m]} if m in bt.reasons else {})
            for m in bt.models
        },
        "style_controlled_bt": {
            m: {"rating": styled.ratings[m], "lower": styled.lower[m], "upper": styled.upper[m]} for m in styled.models
        },
        "style_coefficients": styled.style,
    }


def length_controlled(battles: list[Battle], lengths: list[tuple[int, int]]) -> dict[str, Any]:
    if len(battles) < LC_FOLDS:
        found = counted(len(battles), "scored comparison")
        return {"unavailable": f"{found}; its {LC_FOLDS}-fold fit needs at least {LC_FOLDS}"}
    try:
        fitted = length_controlled_win_rates(battles, lengths, BASELINE)[MODEL]
    except ValueError as error:
        return {"unavailable": str(error)}
    return {
        "win_rate": fitted.win_rate,
        "length_controlled_win_rate": fitted.length_controlled,
        "standard_error": fitted.standard_error,
        "n": fitted.n,
        "coefficients": fitted.coefficients,
    }


def battle_record(item: JudgedItem) -> dict[str, Any]:
    outcome = item.verdict.outcome
    return {
        "id": item.id,
        **item.groups,
        "outcome": None if isinstance(outcome, Unscored) else outcome.value,
        "unscored_reason": outcome.reason if isinstance(outcome, Unscored) else None,
        "parts": item.verdict.parts,
        "chars": [len(item.answer), len(item.baseline)],
        "styles": [answer_style(item.answer), answer_style(item.baseline)],
    }


def score_items(items: list[JudgedItem], fields: tuple[str, ...], n_no_baseline: int) -> dict[str, Any]:
    """The figures of scores.json from the items that have a baseline answer (see the module doc)."""
    records = [battle_record(item) for item in items]
    scored = [r for r in records if r["outcome"] is not None]
    overall = group_figures(items) if items else {"n": 0, "n_unscored": 0}
    result: dict[str, Any] = {
        "n_items": len(items) + n_no_baseline,
        "n_no_baseline": n_no_baseline,
        "n_scored": len(scored),
        "n_unscored": len(records) - len(scored),
        "unscored_reasons": dict(Counter(r["unscored_reason"] for r in records if r["unscored_reason"]).most_common()),
        "overall": overall,
        "win_rate": overall.get("win_rate"),
        "gsb": overall.get("gsb"),
        "flip_rate": overall.get("flip_rate"),
        "groups": by_group(items, fields),
        "group_interval_method": group_method("question", "group"),
    }
    if scored:
        battles = [Battle(MODEL, BASELINE, r["outcome"], item_id=r["id"]) for r in scored]
        styles = [tuple(StyleFeatures(**counts) for counts in r["styles"]) for r in scored]
        result |= ratings(battles, styles)
        result["length_controlled"] = length_controlled(battles, [tuple(r["chars"]) for r in scored])
        result["length_controlled_win_rate"] = result["length_controlled"].get("length_controlled_win_rate")
    result["battles"] = records
    return result
