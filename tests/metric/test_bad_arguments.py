"""The evaluate modules and the rating functions refuse bad numeric arguments with a ValueError naming them."""

from __future__ import annotations

import re

import evaluate
import numpy as np
import pytest

from longform_eval.metric.helloeval.parser import SCORE_LEVELS, parse_verdict
from longform_eval.metric.helloeval.scoring import JudgedRow, score_rows
from longform_eval.metric.helloeval.weights import flat_weights, task_of_subcategory
from longform_eval.metric.pairwise import Battle
from longform_eval.metric.pairwise.ratings import bradley_terry, elo_ratings

from .conftest import REPO

LEVELS = "0, 0.25, 0.5, 0.75, 1"


@pytest.fixture(scope="module")
def helloeval_metric():
    return evaluate.load(str(REPO / "metric/helloeval"))


@pytest.fixture(scope="module")
def pairwise_metric():
    return evaluate.load(str(REPO / "metric/pairwise"))


@pytest.mark.parametrize("off_level", [0.3, 0.6, 0.999, 0.01])
def test_helloeval_refuses_a_checklist_score_off_the_five_levels(helloeval_metric, off_level):
    scores = [1, 0.75, 0.5, off_level, 0, 0.25]
    with pytest.raises(ValueError, match=re.escape(f"predictions[1][3]: {off_level:g} is not one of the five levels")):
        helloeval_metric.compute(predictions=[[1] * 6, scores], references=["news", "news"])


def test_helloeval_takes_every_one_of_the_five_levels(helloeval_metric):
    result = helloeval_metric.compute(predictions=[[0, 0.25, 0.5, 0.75, 1, 1]], references=["news"])
    assert result["n_scored"] == 1 and result["n_unscored"] == 0


def test_released_verdicts_are_all_on_the_five_levels(released_verdicts):
    """Why the pure layer can keep HelloBench's own check (a float in [0, 1]) without changing the reference scores:
    the released GPT-4o verdicts never leave the five levels."""
    found = {
        item["evaluation_score"]
        for model in ("gpt4o_0806", "llama31_8b", "qwen2_7b")
        for record in released_verdicts(model)
        for item in record["checklist_wise_evaluation"]
    }
    assert found == set(SCORE_LEVELS)


def test_a_judge_completion_off_the_levels_is_scored_as_hellobench_does():
    """Judge output follows HelloBench's parse rule (SPEC: castable to a float in [0, 1]); only numbers a caller
    passes to the evaluate module must be on the levels."""
    completion = '[{"checklist_id": 0, "reason": "ok", "evaluation_score": 0.3}]'
    assert parse_verdict(completion, 1).verdict == [0.3]
    row = JudgedRow("x", "news", [1, 1, 0.3, 1, 1, 1])
    assert score_rows([row], flat_weights(), task_of_subcategory()).n_scored == 1


@pytest.mark.parametrize("rounds", [-1, float("nan"), 1.5, True, "10", None])
def test_pairwise_refuses_bad_bootstrap_rounds(pairwise_metric, rounds):
    with pytest.raises(ValueError, match=re.escape(f"bootstrap_rounds must be an integer >= 0, got {rounds!r}")):
        pairwise_metric.compute(
            predictions=["A", "B"], references=["A", "A"], model_a=["x"] * 2, model_b=["y"] * 2, bootstrap_rounds=rounds
        )


def test_pairwise_checks_its_arguments_without_model_names_too(pairwise_metric):
    with pytest.raises(ValueError, match=re.escape("bootstrap_rounds must be an integer >= 0, got nan")):
        pairwise_metric.compute(predictions=["A"], references=["A"], bootstrap_rounds=float("nan"))


@pytest.mark.parametrize("seed", [-1, float("nan"), 0.5])
def test_pairwise_refuses_a_bad_seed(pairwise_metric, seed):
    with pytest.raises(ValueError, match=re.escape(f"seed must be an integer >= 0, got {seed!r}")):
        pairwise_metric.compute(predictions=["A"], references=["A"], model_a=["x"], model_b=["y"], seed=seed)


def test_pairwise_without_bootstrap_gives_ratings_and_no_interval(pairwise_metric):
    labels = ["A"] * 18 + ["B"] * 6  # 24 comparisons: enough to rank both models
    result = pairwise_metric.compute(
        predictions=labels, references=labels, model_a=["x"] * 24, model_b=["y"] * 24, bootstrap_rounds=0
    )
    assert result["bt_x"] > 1000 > result["bt_y"]
    assert result["bt_x_lower"] is None and result["bt_y_upper"] is None
    assert result["bt_x_note"] == "no bootstrap rounds: no interval"
    with_rounds = pairwise_metric.compute(
        predictions=labels, references=labels, model_a=["x"] * 24, model_b=["y"] * 24, bootstrap_rounds=np.int64(5)
    )
    assert with_rounds["bt_x"] == pytest.approx(result["bt_x"])
    assert with_rounds["bt_x_lower"] <= with_rounds["bt_x"] <= with_rounds["bt_x_upper"]


BATTLES = [Battle("x", "y", "A"), Battle("x", "y", "B"), Battle("x", "y", "A")]


@pytest.mark.parametrize(
    "call,message",
    [
        (lambda: elo_ratings(BATTLES, initial=float("nan")), "initial must be a finite number, got nan"),
        (lambda: elo_ratings(BATTLES, k=float("inf")), "k must be a positive number, got inf"),
        (lambda: elo_ratings(BATTLES, seed=-3), "seed must be an integer >= 0, got -3"),
        (lambda: elo_ratings(BATTLES, rounds=2.0), "rounds must be a positive integer, got 2.0"),
        (lambda: bradley_terry(BATTLES, base=float("nan")), "base must be a finite number, got nan"),
        (lambda: bradley_terry(BATTLES, seed=1.5), "seed must be an integer >= 0, got 1.5"),
        (lambda: bradley_terry(BATTLES, alpha=float("nan")), "alpha must be a finite number, got nan"),
        (lambda: bradley_terry(BATTLES, bootstrap=float("nan")), "bootstrap must be an integer >= 0, got nan"),
    ],
)
def test_rating_functions_name_a_bad_argument(call, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        call()
