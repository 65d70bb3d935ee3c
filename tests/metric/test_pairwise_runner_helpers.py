"""The pure helpers the pairwise runner uses: outcome rates, judge-human agreement, and the judge-reply parsers."""

from __future__ import annotations

import json

import pytest
from sklearn.metrics import cohen_kappa_score

from longform_eval.metric import Unscored
from longform_eval.metric.pairwise import (
    SCORE_SCHEMA,
    VERDICT_SCHEMA,
    Outcome,
    judge_agreement,
    load_pairwise_prompt,
    majority,
    outcome_rates,
    parse_single_score,
    parse_verdict_reply,
    single_score_messages,
    tencent_win_rate,
    three_way,
)

A, B, EG, EB = Outcome.A, Outcome.B, Outcome.EQUALLY_GOOD, Outcome.EQUALLY_BAD
HUMAN = {0: "tie", 1: "A", 2: "B"}


def test_outcome_rates_count_ties_half_and_keep_tencents_formula_beside():
    outcomes = [A, A, A, B, EG, EB, EB, "tie"]
    rates = outcome_rates(outcomes)
    assert (rates.n, rates.wins, rates.losses, rates.equally_good, rates.equally_bad) == (8, 3, 1, 2, 2)
    assert rates.win_rate == pytest.approx((3 + 0.5 * 4) / 8)
    assert rates.tencent_win_rate == pytest.approx(tencent_win_rate(outcomes)) == pytest.approx(4 / 8)
    assert rates.gsb == pytest.approx(2 / 8) and rates.equally_bad_rate == pytest.approx(0.25)
    with pytest.raises(ValueError, match="no outcomes"):
        outcome_rates([])


def test_judge_agreement_against_the_pandalm_human_majority(shared_data):
    items = json.loads((shared_data / "pandalm/testset-v1.json").read_text())
    gpt = json.loads((shared_data / "pandalm/gpt-3.5-turbo-testset-v1.json").read_text())
    humans = {str(x["idx"]): majority([HUMAN[x[f"annotator{i}"]] for i in (1, 2, 3)]) for x in items}
    labels = {"1": A, "2": B, "0": EG, "Tie": EB}
    judge = {str(g["idx"]): labels.get(g["gpt_result"], Unscored(g["gpt_result"])) for g in gpt}
    result = judge_agreement(judge, humans, labels=3)
    pairs = [
        (three_way(judge[k]), h) for k, h in humans.items() if h is not None and not isinstance(judge[k], Unscored)
    ]
    assert result.n == len(pairs) and result.n_unscored == 25
    assert result.n_no_reference == sum(h is None for h in humans.values())
    assert result.agreement == pytest.approx(sum(j == h for j, h in pairs) / len(pairs))
    assert result.cohen_kappa == pytest.approx(cohen_kappa_score([j for j, _ in pairs], [h for _, h in pairs]))
    assert sum(map(sum, result.confusion)) == result.n
    assert sum(result.confusion[i][i] for i in range(3)) == round(result.agreement * result.n)


def test_judge_agreement_with_nothing_to_compare():
    result = judge_agreement({"x": Unscored("no verdict")}, {"x": "A", "y": None}, labels=3)
    assert (result.n, result.n_unscored, result.n_no_reference, result.agreement, result.cohen_kappa) == (
        0,
        1,
        1,
        None,
        None,
    )
    assert result.confusion == ((0, 0, 0),) * 3 and result.label_set == "3 labels: A, B, tie"


@pytest.mark.parametrize(
    "text,expected",
    [('"A"', A), ('"equally bad"', EB), ("Reasons.\nVerdict: B", B), ('"tie"', None), ('"a"', None), ("{}", None)],
)
def test_verdict_replies_constrained_or_free(text, expected):
    parsed = parse_verdict_reply(text)
    assert parsed == expected if expected else isinstance(parsed, Unscored)


@pytest.mark.parametrize(
    "text,expected",
    [("7", 7.0), ("Good.\nScore: 8", 8.0), ("**Score:** 6/10", 6.0), ("Score: 9.5", 9.5), ("Score: 0", None)],
)
def test_single_score_replies(text, expected):
    parsed = parse_single_score(text)
    assert parsed == expected if expected is not None else isinstance(parsed, Unscored)


@pytest.mark.parametrize("text", ["11", "true", "Score: ten", "no score here", '"7"'])
def test_single_score_replies_unscored(text):
    assert isinstance(parse_single_score(text), Unscored)


def test_single_score_prompt_and_schemas_come_from_the_settings_file():
    prompt = load_pairwise_prompt()
    assert prompt.judge.both_orders and prompt.judge.parser == "verdict" and prompt.judge.model == "gpt-4"
    user = single_score_messages("Q?", "the answer")[1]["content"]
    assert "Q?" in user and "the answer" in user and "Score: 7" in user
    assert SCORE_SCHEMA["enum"] == list(range(1, 11)) and len(VERDICT_SCHEMA["enum"]) == 4


def test_a_judge_reply_nested_too_deep_is_unscored_not_a_recursion_error():
    from longform_eval.metric.pairwise.judge import parse_single_score, parse_verdict_reply

    deep = "[" * 100_000 + "]" * 100_000
    assert isinstance(parse_verdict_reply(deep), Unscored) and isinstance(parse_single_score(deep), Unscored)
