from __future__ import annotations

import json
import re

import evaluate
import numpy as np
import pytest

from longform_eval.metric import Unscored
from longform_eval.metric.helloeval import build_judge_request, load_prompt, parse_checklist_verdict, parse_verdict
from longform_eval.metric.helloeval.parser import ParsedVerdict
from longform_eval.metric.helloeval.scoring import JudgedRow, first_verdict_per_known_id, row_score, score_rows
from longform_eval.metric.helloeval.weights import TASKS, flat_weights, task_of_subcategory
from longform_eval.metric.text_stats import distinct_n, repetition_n

from .conftest import REPO, run_module_doctests

PUBLISHED = {
    "gpt4o_0806": (48.55, [54.82, 29.71, 42.88, 67.49, 47.87]),
    "llama31_8b": (15.01, [42.52, 18.44, -5.26, -5.61, 24.99]),
    "qwen2_7b": (13.68, [46.05, 7.37, -6.48, 5.12, 16.33]),
}


@pytest.mark.parametrize("model", sorted(PUBLISHED))
def test_released_verdicts_reproduce_the_published_scores_through_evaluate(model, hellobench_rows, released_verdicts):
    records = first_verdict_per_known_id(released_verdicts(model), set(hellobench_rows))
    completions = [str(record["checklist_wise_evaluation"]) for record in records]  # Python-literal strings
    subcategories = [hellobench_rows[record["id"]]["category"] for record in records]
    result = evaluate.load(str(REPO / "metric/helloeval")).compute(predictions=completions, references=subcategories)
    overall, per_task = PUBLISHED[model]
    assert result["score"] == pytest.approx(overall, abs=0.01)
    assert [result[task] for task in TASKS] == pytest.approx(per_task, abs=0.01)
    assert (result["n_scored"], result["n_unscored"]) == (647, 0)


def test_released_verdicts_all_parse(hellobench_rows, released_verdicts):
    for model in PUBLISHED:
        for record in released_verdicts(model):
            n = hellobench_rows[record["id"]]["num_checklist"]
            as_json = json.dumps(record["checklist_wise_evaluation"])
            assert parse_checklist_verdict(as_json, n) == parse_checklist_verdict(
                record["checklist_wise_evaluation"], n
            )
            assert not isinstance(parse_checklist_verdict(as_json, n), Unscored)


def verdict(scores):
    return [{"checklist_id": i, "reason": "because", "evaluation_score": s} for i, s in enumerate(scores)]


@pytest.mark.parametrize(
    "text,expected",
    [
        ("```json\n" + json.dumps(verdict([1, 0.5, 0])) + "\n```", [1.0, 0.5, 0.0]),
        ("```python\n" + str(verdict([0.25, 0.75, 1])) + "\n```", [0.25, 0.75, 1.0]),
        ("Here is my evaluation:\n" + json.dumps(verdict([1, 1, 1])) + "\nHope this helps.", [1.0, 1.0, 1.0]),
        (json.dumps(verdict(["0.5", " 1 ", "0"])), [0.5, 1.0, 0.0]),
        (str(verdict([1, 1, 0.75])).replace("because", 'it says "quoted" and it\'s fine'), [1.0, 1.0, 0.75]),
        (str([{**v, "reason": "both \"double\" and 'single'"} for v in verdict([0, 0.25, 1])]), [0.0, 0.25, 1.0]),
    ],
)
def test_parser_accepts_well_formed_verdicts(text, expected):
    assert parse_checklist_verdict(text, 3) == expected


@pytest.mark.parametrize(
    "text,reason",
    [
        (json.dumps(verdict([1, 1, 1]))[:-40], "no JSON or Python list"),
        (str(verdict([1, 1])).replace("because", "it's"), "no JSON or Python list"),
        (json.dumps(verdict([1, 1])), "expected 3 checklist verdicts, got 2"),
        (json.dumps(verdict([1, 1, 1, 1])), "expected 3 checklist verdicts, got 4"),
        (json.dumps(verdict([1, float("nan"), 1])), "outside [0, 1]"),
        (json.dumps(verdict([1, "1.5", 1])), "outside [0, 1]"),
        (json.dumps(verdict([1, -0.25, 1])), "outside [0, 1]"),
        (json.dumps(verdict([1, "good", 1])), "is not a number"),
        (json.dumps(verdict([1, None, 1])), "is not a number"),
        (json.dumps(verdict([1, [1], 1])), "is not a number"),
        ('[{"checklist_id": 0}, 1, 2]', "no 'evaluation_score'"),
        ("__import__('os').system('echo owned')", "no JSON or Python list"),
        ("[" * 100_000, "no JSON or Python list"),
        ("x" * 1_000_000, "too long"),
        ("", "no JSON or Python list"),
    ],
)
def test_parser_returns_unscored_with_a_reason_on_hostile_input(text, reason):
    result = parse_checklist_verdict(text, 3)
    assert isinstance(result, Unscored)
    assert reason in result.reason


@pytest.mark.parametrize("rule", ["upstream", "lenient"])
def test_json_booleans_are_read_as_upstream_float_reads_them(rule):
    """llm_judge.py stores `float(d["evaluation_score"])`: float(True) is 1.0, float(False) 0.0, both in [0, 1]."""
    completion = json.dumps(verdict([True, False, 0.5]))
    assert parse_verdict(completion, 3, rule=rule) == ParsedVerdict([1.0, 0.0, 0.5])


def test_the_evaluate_module_reads_completions_with_the_lenient_parser(helloeval_metric):
    """Its documented deviation: a Python-literal reply, unscored by upstream's rule, is scored here."""
    literal = str(verdict([1, 1, 1, 1, 1, 1]))
    assert isinstance(parse_verdict(literal, 6, rule="upstream").verdict, Unscored)
    result = helloeval_metric.compute(predictions=[literal], references=["news"])
    assert result["n_scored"] == 1 and result["score"] == pytest.approx(100.0)  # weights sum to 100 up to rounding
    assert "Deviation from upstream" in helloeval_metric.description
    card = (REPO / "metric/helloeval/README.md").read_text()
    assert "### Deviation from upstream: the parser" in card


def test_judge_prompt_is_filled_from_a_row(hellobench_rows):
    row = hellobench_rows["chat_002"]
    request = build_judge_request(row, "Template 1: The Mann-Whitney U test showed U = 12, p = .03. Done.")
    system, user = request.messages
    assert system["role"] == "system" and system["content"] == load_prompt().system
    assert '{"instruction": write 10 different templates to report mann whitney u-test}' in user["content"]
    assert '{"response": Template 1 : The Mann-Whitney U test showed U = 12 , p = .03 . Done .}' in user["content"]
    assert json.dumps(row["checklists"][0], ensure_ascii=False)[1:-1] in user["content"]
    assert "There are total 6 checklists" in user["content"]
    assert request.num_checklist == 6 and not request.truncated
    settings = load_prompt().judge
    assert (settings.model, settings.temperature, settings.max_tokens, settings.seed, settings.attempts) == (
        "gpt-4o",
        0.8,
        4096,
        42,
        3,
    )


def test_long_responses_are_truncated_to_16000_tokens_and_flagged(hellobench_rows):
    row = hellobench_rows["chat_002"]
    assert not build_judge_request(row, "zebra " * 15000).truncated
    request = build_judge_request(row, "zebra " * 15001)
    assert request.truncated  # over 15000 tokens: flagged, and the first 16000 kept (all 15001 here)
    assert request.messages[1]["content"].count("zebra") == 15001
    request = build_judge_request(row, "zebra " * 20000)
    assert request.messages[1]["content"].count("zebra") == 16000


def test_unscored_rows_are_counted_and_never_scored_zero():
    weights, task_of = flat_weights(), task_of_subcategory()
    rows = [
        JudgedRow("a", "news", [1.0] * 6),
        JudgedRow("b", "news", Unscored("truncated JSON")),
        JudgedRow("c", "news", [1.0] * 5),  # wrong length
    ]
    scores = score_rows(rows, weights, task_of)
    assert scores.tasks["summarization"].score == pytest.approx(100.0)
    assert (scores.n_scored, scores.n_unscored) == (1, 2)
    assert scores.unscored_reasons == {"truncated JSON": 1, "expected 6 checklist scores, got 5": 1}
    assert scores.subcategories["news"].n_unscored == 2


def test_subcategory_breakdown_and_word_counts():
    weights, task_of = flat_weights(), task_of_subcategory()
    rows = [
        JudgedRow("1", "news", [0.5] * 6, 100),
        JudgedRow("2", "blogs", [1] * 6, 300),
        JudgedRow("3", "Science", [1] * 7, 50),
    ]
    scores = score_rows(rows, weights, task_of)
    assert scores.subcategories["news"].mean_row_score == pytest.approx(50)
    assert scores.tasks["summarization"].mean_row_score == pytest.approx(75)
    assert scores.tasks["summarization"].score == pytest.approx(0)
    assert scores.tasks["summarization"].mean_word_count == 200
    assert scores.mean_word_count == pytest.approx((200 + 50) / 2)
    assert scores.overall == pytest.approx((0 + 100) / 2)


def test_repetition_and_distinct_4():
    looping = ["a", "b", "c", "d"] * 5
    assert repetition_n(looping) == 1.0
    assert distinct_n(looping) == pytest.approx(4 / 20)
    fresh = [str(i) for i in range(20)]
    assert repetition_n(fresh) == 0.0 and distinct_n(fresh) == pytest.approx(17 / 20)
    assert repetition_n("one two three") == 0.0
    assert 0 < repetition_n("I think so. I think so. I think so. Fine.") < 1


def test_metric_doctests_run(monkeypatch):
    results = run_module_doctests(REPO / "metric/helloeval/helloeval.py", monkeypatch)
    assert results.failed == 0 and results.attempted >= 2


def test_metric_rejects_unknown_subcategories():
    with pytest.raises(ValueError, match="unknown HelloBench subcategories"):
        evaluate.load(str(REPO / "metric/helloeval")).compute(predictions=[[1.0]], references=["Poetry"])


def test_shipped_weights_equal_the_released_file(shared_data):
    from longform_eval.dataset_builder.hellobench_weights import load_weights

    released = load_weights(shared_data / "hellobench/weighted_scores.txt")
    assert {k: list(v) for k, v in flat_weights().items()} == released
    assert np.isclose(min(min(w) for w in released.values()), 5.26, atol=0.01)


@pytest.fixture(scope="module")
def helloeval_metric():
    return evaluate.load(str(REPO / "metric/helloeval"))


@pytest.mark.parametrize(
    "bad,message",
    [
        (5, "5 is outside [0, 1]"),
        (-1, "-1 is outside [0, 1]"),
        (-0.25, "-0.25 is outside [0, 1]"),
        (float("nan"), "nan is not a finite number"),
        (float("inf"), "inf is not a finite number"),
        (None, "None is not a number"),
    ],
)
def test_metric_rejects_checklist_scores_outside_the_unit_interval(helloeval_metric, bad, message):
    scores = [1, 1, bad, 1, 1, 1]
    with pytest.raises(ValueError, match=re.escape(f"predictions[1][2]: {message}")):
        helloeval_metric.compute(predictions=[[1] * 6, scores], references=["news", "news"])


def test_metric_rejects_the_hostile_all_fives_verdict(helloeval_metric):
    with pytest.raises(ValueError, match=re.escape("predictions[0][0]: 5 is outside [0, 1]")):
        helloeval_metric.compute(predictions=[[5] * 6], references=["report_write"])


def test_metric_rejects_checklist_score_lists_of_the_wrong_length(helloeval_metric):
    with pytest.raises(ValueError, match=re.escape("predictions[0]: 5 checklist scores, but 'news' has 6 checklists")):
        helloeval_metric.compute(predictions=[[1] * 5], references=["news"])


def test_metric_rejects_negative_word_counts(helloeval_metric):
    with pytest.raises(ValueError, match=re.escape("word_counts[1]: -3 is not a non-negative integer")):
        helloeval_metric.compute(predictions=[[1] * 6] * 2, references=["news"] * 2, word_counts=[10, -3])


def test_metric_still_counts_unusable_judge_text_as_unscored(helloeval_metric):
    fives = json.dumps(verdict([5] * 6))
    result = helloeval_metric.compute(predictions=[fives, "no verdict here"], references=["news", "news"])
    assert (result["score"], result["n_scored"], result["n_unscored"]) == (None, 0, 2)


@pytest.mark.parametrize(
    "bad,reason",
    [
        (5, "checklist score 2: 5 is outside [0, 1]"),
        (-1, "checklist score 2: -1 is outside [0, 1]"),
        (float("nan"), "checklist score 2: nan is not a finite number"),
        (float("inf"), "checklist score 2: inf is not a finite number"),
        (float("-inf"), "checklist score 2: -inf is not a finite number"),
        (None, "checklist score 2: None is not a number"),
        (True, "checklist score 2: True is not a number"),
        ("0.5", "checklist score 2: '0.5' is not a number"),
    ],
)
def test_scoring_leaves_bad_checklist_values_unscored_and_counts_them(bad, reason):
    weights, task_of = flat_weights(), task_of_subcategory()
    rows = [JudgedRow("good", "news", [0.5] * 6), JudgedRow("bad", "news", [1, 1, bad, 1, 1, 1])]
    scores = score_rows(rows, weights, task_of)
    assert (scores.n_scored, scores.n_unscored) == (1, 1)
    assert scores.unscored_reasons == {reason: 1}
    assert scores.subcategories["news"].mean_row_score == pytest.approx(50)  # the bad row is not in the mean
    assert scores.subcategories["news"].n_unscored == 1
    result = row_score([1, 1, bad, 1, 1, 1], weights["news"])
    assert isinstance(result, Unscored) and result.reason == reason


@pytest.mark.parametrize(
    "verdict_value,reason",
    [
        ([5] * 6, "checklist score 0: 5 is outside [0, 1]"),
        ((1.0, 1.0, 1.0, 1.0, 1.0, np.nan), "checklist score 5: nan is not a finite number"),
        (np.array([1.0, 1, 1, 1, 1, 2]), "checklist score 5: 2 is outside [0, 1]"),
        (None, "expected a list of checklist scores, got NoneType"),
        ("111111", "expected a list of checklist scores, got str"),
    ],
)
def test_scoring_checks_every_kind_of_verdict_container(verdict_value, reason):
    scores = score_rows([JudgedRow("x", "news", verdict_value)], flat_weights(), task_of_subcategory())
    assert (scores.n_scored, scores.n_unscored, scores.unscored_reasons) == (0, 1, {reason: 1})
    assert scores.overall is None


def test_scoring_accepts_numpy_numbers_and_ints():
    rows = [JudgedRow("x", "news", np.array([1.0, 0.5, 0, 1, 1, 1], dtype=np.float32), np.int64(12))]
    rows.append(JudgedRow("y", "news", [1, 0, 1, 1, 1, 1], 8))
    scores = score_rows(rows, flat_weights(), task_of_subcategory())
    assert (scores.n_scored, scores.n_unscored) == (2, 0)
    assert scores.subcategories["news"].mean_word_count == 10


@pytest.mark.parametrize(
    "weights,message",
    [
        ([50, 50, 10, -10, 0, 0], r"weights\['news'\]\[3\]: -10 is negative"),
        ([1 / 6] * 6, r"weights\['news'\]: sum to 1, expected 100"),
        ([100, float("nan"), 0, 0, 0, 0], r"weights\['news'\]\[1\]: nan is not a finite number"),
        ([], r"weights\['news'\]: expected a non-empty list"),
    ],
)
def test_scoring_rejects_bad_weights(weights, message):
    with pytest.raises(ValueError, match=message):
        score_rows([JudgedRow("x", "news", [1] * 6)], {"news": weights}, task_of_subcategory())


def test_scoring_rejects_negative_word_counts():
    with pytest.raises(ValueError, match="row x: word_count -1 is not a non-negative integer"):
        score_rows([JudgedRow("x", "news", [1] * 6, -1)], flat_weights(), task_of_subcategory())


def test_word_counts_come_from_scored_rows_only_as_upstream_compute_py():
    rows = [
        JudgedRow("1", "news", [1] * 6, 100),
        JudgedRow("2", "news", Unscored("no JSON"), 900),  # left out of WC, as upstream skips the row entirely
        JudgedRow("3", "news", [2] * 6, 700),  # out of range: unscored, and its words are not counted either
    ]
    scores = score_rows(rows, flat_weights(), task_of_subcategory())
    assert (scores.n_scored, scores.n_unscored) == (1, 2)
    assert scores.subcategories["news"].mean_word_count == 100
    assert scores.tasks["summarization"].mean_word_count == 100


def test_the_metric_names_the_same_tasks_as_the_dataset_builder():
    from longform_eval.dataset_builder.hellobench import TASKS as BUILDER_TASKS

    assert TASKS == BUILDER_TASKS
