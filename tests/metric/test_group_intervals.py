"""Intervals of group figures (a bucket's S_l, an area's win rate) and of a judge's agreement with human labels."""

from __future__ import annotations

import json

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from longform_eval.metric import Unscored
from longform_eval.metric.pairwise import Outcome, judge_agreement, majority
from longform_eval.metric.pairwise.agreement import agreement
from longform_eval.metric.pairwise.agreement_intervals import rate_interval
from longform_eval.metric.uncertainty import mean
from longform_eval.metric.uncertainty.groups import as_dicts, group_intervals, group_method
from longform_eval.metric.uncertainty.label_agreement import weighted_kappa

HUMAN = {0: "tie", 1: "A", 2: "B"}
LABELS = {"1": Outcome.A, "2": Outcome.B, "0": Outcome.EQUALLY_GOOD, "Tie": Outcome.EQUALLY_BAD}


@pytest.fixture(scope="module")
def gpt_against_humans(shared_data):
    """GPT-3.5's released PandaLM verdicts and the human majority labels."""
    items = json.loads((shared_data / "pandalm/testset-v1.json").read_text())
    gpt = json.loads((shared_data / "pandalm/gpt-3.5-turbo-testset-v1.json").read_text())
    humans = {str(x["idx"]): majority([HUMAN[x[f"annotator{i}"]] for i in (1, 2, 3)]) for x in items}
    judge = {str(g["idx"]): LABELS.get(g["gpt_result"], Unscored(g["gpt_result"])) for g in gpt}
    return judge, humans


def test_agreement_intervals_hold_the_released_figures_and_narrow_with_more_items(gpt_against_humans):
    judge, humans = gpt_against_humans
    result = judge_agreement(judge, humans, labels=3)
    pairs = [(humans[k], judge[k]) for k in humans if humans[k] is not None and not isinstance(judge[k], Unscored)]
    expected, judged = [h for h, _ in pairs], [j for _, j in pairs]
    assert len(judged) == result.n
    found = result.agreement_interval, result.kappa_interval
    assert found[0].point == pytest.approx(result.agreement) and found[0].contains(result.agreement)
    assert found[1].contains(result.cohen_kappa) and found[1].n == result.n
    few = agreement(expected[:100], judged[:100], labels=3)
    for mine, theirs in zip((few.agreement_interval, few.kappa_interval), found, strict=True):
        assert mine.width > theirs.width > 0
    one, none = agreement(expected[:1], judged[:1], labels=3), agreement([], [], labels=3)
    assert (one.agreement_interval, one.kappa_interval) == (None, None) and one.reasons
    assert (none.agreement, none.cohen_kappa, none.reasons["agreement"]) == (None, None, "no item")


def test_weighted_kappa_counts_an_item_drawn_twice_as_two_items():
    judged, expected = np.array([0, 1, 2, 2, 0]), np.array([0, 1, 1, 2, 2])
    counts = np.array([2, 0, 1, 3, 1])
    repeated = (np.repeat(judged, counts), np.repeat(expected, counts))
    assert weighted_kappa(judged, expected, 3, counts) == pytest.approx(cohen_kappa_score(*repeated, labels=[0, 1, 2]))
    assert np.isnan(weighted_kappa(np.array([0, 0]), np.array([0, 0]), 3, np.ones(2)))  # one label: undefined


def test_a_group_of_one_unit_has_no_interval_and_the_same_seed_gives_the_same_one():
    one = group_intervals({"win_rate": mean([1.0, np.nan])}, unit="question")  # one scored question
    assert one == {"win_rate": None}
    values = [1.0, 0.0, 0.5, 1.0, 0.5, np.nan]
    first, second = (as_dicts(group_intervals({"win_rate": mean(values)}, unit="question")) for _ in range(2))
    assert first == second and first["win_rate"]["n"] == 5  # the same call twice: bit-identical by construction
    assert first["win_rate"]["low"] <= 0.6 <= first["win_rate"]["high"]
    with pytest.raises(ValueError, match="different numbers of units"):
        group_intervals({"a": mean([1.0, 0.0]), "b": mean([1.0, 0.0, 1.0])})
    assert group_method("prompt", "bucket").startswith("95% t interval over each bucket's prompts")


def test_rate_interval_pools_an_items_verdicts():
    hits, counted = np.array([2.0, 0.0, 1.0, 0.0]), np.array([2.0, 2.0, 1.0, 0.0])  # the last item: none decisive
    found = rate_interval(hits, counted)
    assert found.point == pytest.approx(3 / 5) and found.n == 3 and found.contains(3 / 5)
    assert rate_interval(np.array([1.0]), np.array([1.0])) is None and rate_interval(np.array([]), np.array([])) is None
