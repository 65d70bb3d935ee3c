from __future__ import annotations

import itertools
import json
import math
import re

import evaluate
import numpy as np
import pytest

from longform_eval.metric import Unscored
from longform_eval.metric.pairwise import (
    Battle,
    Outcome,
    bradley_terry,
    combine_orders,
    elo_ratings,
    elo_win_probability,
    flip_rate,
    from_single_scores,
    gsb,
    majority,
    pairwise_agreement,
    pairwise_messages,
    parse_pairwise_verdict,
    predicted_win_rates,
    quality_control,
    tencent_win_rate,
    three_label_agreement,
    win_rate_matrix,
)

from .conftest import REPO, run_module_doctests

A, B, EG, EB = Outcome.A, Outcome.B, Outcome.EQUALLY_GOOD, Outcome.EQUALLY_BAD
PANDALM_LABELS = {"1": A, "2": B, "0": EG, "Tie": EG}  # PandaLM's tie does not say good or bad
ANNOTATORS = ("annotator1", "annotator2", "annotator3")


@pytest.fixture(scope="module")
def pandalm(shared_data):
    items = json.loads((shared_data / "pandalm/testset-v1.json").read_text())
    gpt = json.loads((shared_data / "pandalm/gpt-3.5-turbo-testset-v1.json").read_text())
    human = {a: {x["idx"]: PANDALM_LABELS[str(x[a])] for x in items} for a in ANNOTATORS}
    judge = {g["idx"]: PANDALM_LABELS.get(g["gpt_result"], Unscored(g["gpt_result"])) for g in gpt}
    majority_label = {x["idx"]: majority([human[a][x["idx"]] for a in ANNOTATORS]) for x in items}
    return items, human, judge, majority_label


def test_pandalm_human_agreement(pandalm):
    items, human, _, _ = pandalm
    assert len(items) == 999
    pairs = {(a, b): pairwise_agreement(human[a], human[b]) for a, b in itertools.combinations(ANNOTATORS, 2)}
    for (a, b), value in pairs.items():
        assert value == sum(human[a][k] == human[b][k] for k in human[a]) / 999  # one int / int division: exact
    print("human-human pairwise agreement:", {k: round(v, 4) for k, v in pairs.items()})
    per_item = [three_label_agreement([human[a][x["idx"]] for a in ANNOTATORS]) for x in items]
    expected = [{1: 1, 2: 1 / 3, 3: 0}[len({human[a][x["idx"]] for a in ANNOTATORS})] for x in items]
    assert per_item == expected
    print("three-label agreement:", round(np.mean(per_item), 4))
    assert 0.85 < np.mean(per_item) <= 1


def test_pandalm_gpt35_agreement_with_the_human_majority(pandalm):
    _, _, judge, majority_label = pandalm
    scored = {k: v for k, v in judge.items() if not isinstance(v, Unscored)}
    assert len(judge) - len(scored) == 25  # "garbage" verdicts are unscored, not a label
    agreement = pairwise_agreement(scored, {k: v for k, v in majority_label.items() if v is not None})
    print("GPT-3.5 vs human majority:", round(agreement, 4), "on", len(scored), "items")
    assert agreement == pytest.approx(sum(scored[k] == majority_label[k] for k in scored) / len(scored))
    result = evaluate.load(str(REPO / "metric/pairwise")).compute(
        predictions=["unscored" if isinstance(judge[k], Unscored) else judge[k].value for k in sorted(judge)],
        references=[majority_label[k].value for k in sorted(judge)],
    )
    assert result["agreement"] == pytest.approx(agreement)
    assert (result["n_scored"], result["n_unscored"]) == (974, 25)


@pytest.fixture(scope="module")
def pandalm_battles(pandalm):
    items, _, _, majority_label = pandalm
    return [Battle(*x["cmp_key"].split("_"), majority_label[x["idx"]], item_id=x["idx"]) for x in items]


def test_pandalm_ratings_elo_and_bt_agree_where_intervals_separate(pandalm_battles):
    elo = elo_ratings(pandalm_battles)
    bt = bradley_terry(pandalm_battles, bootstrap=100, seed=0)
    print("Elo:", {m: round(r, 1) for m, r in elo.items()})
    print("BT:", {m: (round(bt.ratings[m], 1), round(bt.lower[m], 1), round(bt.upper[m], 1)) for m in bt.models})
    assert len(bt.models) == 5
    separated = 0
    for i, j in itertools.permutations(bt.models, 2):
        if bt.lower[i] > bt.upper[j]:
            separated += 1
            assert elo[i] > elo[j], (i, j)
    assert separated >= 5
    for model in bt.models:
        assert bt.lower[model] <= bt.ratings[model] <= bt.upper[model]


def test_bt_maximum_likelihood_matches_each_models_total_points(pandalm_battles):
    bt = bradley_terry(pandalm_battles, bootstrap=0)
    models, matrix = win_rate_matrix(pandalm_battles)
    games = {m: {o: 0 for o in models} for m in models}
    for b in pandalm_battles:
        games[b.model_a][b.model_b] += 1
        games[b.model_b][b.model_a] += 1
    implied = predicted_win_rates(bt.ratings)
    for i, model in enumerate(models):
        expected = sum(games[model][o] * implied[(model, o)] for o in models if o != model)
        actual = sum(games[model][o] * matrix[i, j] for j, o in enumerate(models) if o != model)
        assert expected == pytest.approx(actual, abs=1e-3)


def test_elo_implied_win_rates_follow_the_logistic_formula():
    assert elo_win_probability(1400, 1000) == pytest.approx(10 / 11)
    assert elo_win_probability(1000, 1000) == 0.5
    implied = predicted_win_rates({"gpt4": 0.0, "chatgpt": -23.0, "chinese_llama2": -265.0})
    for (i, j), p in implied.items():
        assert p + implied[(j, i)] == pytest.approx(1)
    assert implied[("gpt4", "chinese_llama2")] == pytest.approx(1 / (1 + 10 ** (-265 / 400)))


def test_elo_update_is_k4_from_1000():
    ratings = elo_ratings([Battle("x", "y", A)], rounds=1)
    assert ratings == {"x": 1002.0, "y": 998.0}
    ratings = elo_ratings([Battle("x", "y", EB)], rounds=1)
    assert ratings == {"x": 1000.0, "y": 1000.0}  # equally bad is a draw


def test_win_rate_matrix_and_the_tencent_formula():
    battles = [Battle("m", "n", o) for o in (A, A, B, EG, EB)]
    models, matrix = win_rate_matrix(battles)
    assert models == ["m", "n"]
    assert matrix[0, 1] == pytest.approx((2 + 0.5 + 0.5) / 5)  # ties are draws, as in Elo
    assert matrix[1, 0] == pytest.approx(1 - matrix[0, 1])
    assert math.isnan(matrix[0, 0])
    assert tencent_win_rate([A, A, B, EG, EB]) == pytest.approx((2 + 0.5) / 5)


def test_position_swap_combination_and_flip_rate():
    assert combine_orders(A, B) == A  # A first, then (swapped) B = the same answer wins
    assert combine_orders(A, A) == EG  # disagreement is a tie
    assert combine_orders(B, EB) == EB
    assert isinstance(combine_orders(Unscored("x"), A), Unscored)
    assert flip_rate([(A, B), (A, A), (EG, EG), (Unscored("x"), A)]) == pytest.approx(1 / 3)


@pytest.mark.parametrize(
    "a,b,outcome",
    [(9, 6, A), (6, 9, B), (8, 7, EG), (6, 6, EG), (4, 1, EB), (3, 8, B), (5, 2, EB), (7, 5, EB), (8, 5, A)],
)
def test_single_score_mapping(a, b, outcome):
    assert from_single_scores(a, b) == outcome
    assert from_single_scores(b, a) == {A: B, B: A}.get(outcome, outcome)


def test_gsb_z_scores_and_gold_questions():
    battles = []
    for annotator in ("u1", "u2", "u3", "u4", "u5", "u6"):
        for item in range(10):
            outcome = A if item < 5 else B
            if annotator == "u6":
                outcome = A  # always prefers A and misses the gold on 5 items
            battles.append(Battle("m", "n", outcome, annotator=annotator, item_id=str(item)))
    scores = gsb(battles)
    assert scores["u1"] == 0.0 and scores["u6"] == 1.0
    qc = {row.annotator: row for row in quality_control(battles)}
    assert qc["u6"].gsb_flag and qc["u6"].gold_misses == 5 and qc["u6"].gold_flag and qc["u6"].disqualified
    assert not any(qc[a].gsb_flag or qc[a].gold_flag for a in ("u1", "u2", "u3", "u4", "u5"))


@pytest.mark.parametrize(
    "text,expected",
    [
        ("Answer A is more accurate.\nVerdict: A", A),
        ("reasons\n**Verdict:** B", B),
        ("Verdict: A\nOn reflection...\nVerdict: equally good", EG),
        ("verdict: Equally bad.", EB),
        ("Verdict: [[B]]", B),
    ],
)
def test_pairwise_verdict_parser(text, expected):
    assert parse_pairwise_verdict(text) == expected


@pytest.mark.parametrize("text", ["A is better", "Verdict: both", "Verdict: tie", "", "Verdict:"])
def test_pairwise_verdict_parser_unscored(text):
    assert isinstance(parse_pairwise_verdict(text), Unscored)


def test_pairwise_prompt_lists_the_seven_criteria_in_order():
    user = pairwise_messages("Q?", "first", "second")[1]["content"]
    order = [
        "Safety",
        "Neutrality",
        "Factual correctness",
        "Instruction following",
        "Logical consistency",
        "Fluency",
        "Informativeness",
    ]
    positions = [user.index(name) for name in order]
    assert positions == sorted(positions)
    assert user.index("reasons") < user.index("Verdict: A")
    assert "[Answer A]\nfirst" in user and "[Answer B]\nsecond" in user


def test_metric_doctests_run(monkeypatch):
    results = run_module_doctests(REPO / "metric/pairwise/pairwise.py", monkeypatch)
    assert results.failed == 0 and results.attempted >= 2


@pytest.fixture(scope="module")
def pairwise_metric():
    return evaluate.load(str(REPO / "metric/pairwise"))


@pytest.mark.parametrize(
    "model_b,message",
    [
        ([None, "llama"], "model_b[0]: expected a model name (a string), got None"),
        (["llama", ""], "model_b[1]: expected a model name, got the empty string ''"),
        (["llama", 7], "model_b[1]: expected a model name (a string), got 7"),
        (["llama", "gpt"], "model_a[1] and model_b[1] are both 'gpt': a model compared with itself"),
        ("ll", "model_a and model_b must both be lists of 2 model names; model_b is str of length 2"),
    ],
)
def test_metric_rejects_bad_model_names(pairwise_metric, model_b, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        pairwise_metric.compute(predictions=["A", "B"], references=["A", "A"], model_a=["gpt"] * 2, model_b=model_b)


def test_metric_names_the_position_of_an_unknown_label(pairwise_metric):
    with pytest.raises(ValueError, match=re.escape("predictions[1]: unknown pairwise label 'C'")):
        pairwise_metric.compute(predictions=["A", "C"], references=["A", "A"])
    with pytest.raises(ValueError, match=re.escape("references[0]: unknown pairwise label 'better'")):
        pairwise_metric.compute(predictions=["A", "unscored"], references=["better", "A"])


def test_metric_rejects_empty_input(pairwise_metric):
    with pytest.raises(ValueError, match="predictions is empty"):
        pairwise_metric.compute(predictions=[], references=[])


def test_metric_gives_no_rating_without_a_scored_comparison(pairwise_metric):
    result = pairwise_metric.compute(
        predictions=["unscored", ""], references=["A", "B"], model_a=["gpt"] * 2, model_b=["llama"] * 2
    )
    assert (result["n_scored"], result["elo_gpt"], result["bt_llama"], result["bt_gpt_upper"]) == (0, None, None, None)


@pytest.mark.parametrize(
    "model_a,model_b,outcome,message",
    [
        ("x", None, A, "model_b: expected a model name (a string), got None"),
        ("", "y", A, "model_a: expected a model name, got the empty string"),
        ("x", "x", A, "model 'x' is compared with itself"),
        ("x", "y", "C", "unknown pairwise label 'C'"),
        ("x", "y", None, "unknown pairwise label None"),
    ],
)
def test_battles_reject_bad_models_and_labels(model_a, model_b, outcome, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        Battle(model_a, model_b, outcome)


def test_battles_read_labels_as_outcomes():
    assert Battle("x", "y", "equally_bad").outcome is EB
    assert Battle("x", "y", "tie").outcome is EG
    assert tencent_win_rate(["A", "equally_good", "equally good", "B"]) == pytest.approx((1 + 0.5 + 0.5) / 4)


def test_empty_or_degenerate_rating_inputs_are_clear_errors():
    with pytest.raises(ValueError, match="no outcomes"):
        tencent_win_rate([])
    with pytest.raises(ValueError, match="rounds must be a positive integer, got 0"):
        elo_ratings([Battle("x", "y", A)], rounds=0)
    with pytest.raises(ValueError, match="bootstrap must be an integer >= 0, got -1"):
        bradley_terry([Battle("x", "y", A)], bootstrap=-1)
    with pytest.raises(ValueError, match=r"battles involve models not in `models`: \['y'\]"):
        win_rate_matrix([Battle("x", "y", A)], models=["x", "z"])
    assert elo_ratings([]) == {}
    assert bradley_terry([], bootstrap=10).ratings == {}
    assert majority([]) is None


@pytest.mark.parametrize(
    "a,b,reason",
    [
        (float("nan"), 6, "score of A: nan is outside [1, 10]"),
        (9, 11, "score of B: 11 is outside [1, 10]"),
        (0, 9, "score of A: 0 is outside [1, 10]"),
        (None, 9, "score of A: None is not a number"),
        (9, True, "score of B: True is not a number"),
    ],
)
def test_single_scores_out_of_range_are_unscored(a, b, reason):
    result = from_single_scores(a, b)
    assert isinstance(result, Unscored) and result.reason == reason
