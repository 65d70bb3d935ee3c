"""LongBench-Write: the length counter, S_l at the piecewise boundaries, S_q, S, the buckets and the judge parsers."""

from __future__ import annotations

import json

import evaluate
import pytest

from longform_eval.metric import Unscored
from longform_eval.metric.longbench_write import (
    BUCKETS,
    Item,
    bucket_of,
    count_length,
    judge_prompt,
    length_score,
    paper_settings,
    parse_judgement,
    quality_score,
    score_items,
)

from .conftest import REPO, run_module_doctests

DIMENSIONS = ("Relevance", "Accuracy", "Coherence", "Clarity", "Breadth and Depth", "Reading Experience")


def reply(*scores: float, **extra) -> str:
    return json.dumps({"Analysis": "brief analysis", **dict(zip(DIMENSIONS, scores, strict=False)), **extra})


def verdict(*scores: float) -> dict[str, float]:
    return dict(zip(DIMENSIONS, map(float, scores), strict=True))


def upstream_score(x: int, y: int) -> float:
    """The formula as upstream eval_length.py writes it (y > 0)."""
    if y > x:
        return 100 * max(0, 1.0 - (y / x - 1) / 3)
    return 100 * max(0, 1.0 - (x / y - 1) / 2)


@pytest.mark.parametrize(
    "required,actual,expected",
    [
        (100, 100, 100.0),  # y = x
        (100, 200, 200 / 3),  # y = 2x: the SPEC's worked figure, 66.67
        (100, 400, 0.0),  # y = 4x: the overshoot branch reaches 0
        (100, 399, 100 * (1 - 2.99 / 3)),  # just inside
        (100, 1000, 0.0),  # clamped at 0
        (300, 100, 0.0),  # y = x / 3: the undershoot branch reaches 0
        (300, 101, 100 * (1 - (300 / 101 - 1) / 2)),  # just inside
        (100, 50, 50.0),  # y = x / 2
        (100, 1, 0.0),  # clamped at 0
        (100, 0, 0.0),  # an empty output scores 0 (upstream divides by zero)
        (20_000, 20_001, 100 * (1 - (20_001 / 20_000 - 1) / 3)),
    ],
)
def test_length_score_at_the_piecewise_boundaries(required, actual, expected):
    assert length_score(required, actual) == pytest.approx(expected, abs=1e-12)
    if actual > 0:
        assert length_score(required, actual) == pytest.approx(upstream_score(required, actual), abs=1e-12)


@pytest.mark.parametrize("required,actual", [(0, 10), (-5, 10), (True, 10), (10.0, 10), (10, -1), (10, 2.5)])
def test_length_score_refuses_what_is_no_length(required, actual):
    with pytest.raises(ValueError, match="length must be"):
        length_score(required, actual)


@pytest.mark.parametrize(
    "text,expected",
    [
        ("", 0),
        ("one two three", 3),
        ("我们写了 three English words。", 7),  # 4 CJK characters + 3 words
        ("中文，English；混合。", 5),  # full-width punctuation is a word boundary
        ("Python编程", 2),  # letters glued to CJK characters are no word (\b sees CJK as a word character)
        ("abc123 4000字 x2", 1),  # letters glued to digits are no word; the CJK character counts
        ("don't e-mail", 4),  # don, t, e, mail
        ("café au lait", 2),  # "caf" is glued to "é", a word character: only "au" and "lait" count
        ("ひらがな 한국어 𠀀", 0),  # kana, hangul and CJK beyond U+9FFF are not counted
        ("\u4e00\u9fff\u3400", 2),  # the range is [\u4e00-\u9fff]: U+3400 (extension A) is outside
    ],
)
def test_length_is_cjk_characters_plus_english_words_as_upstream(text, expected):
    assert count_length(text) == expected


def test_mixed_zh_and_en_output_at_twice_the_length():
    output = "中文" * 50 + " word" * 100  # 100 CJK characters + 100 English words
    assert count_length(output) == 200
    assert length_score(100, count_length(output)) == pytest.approx(66.6667, abs=1e-4)


@pytest.mark.parametrize(
    "required,bucket",
    [
        (1, "[0,500)"),
        (499, "[0,500)"),
        (500, "[500,2k)"),
        (1_999, "[500,2k)"),
        (2_000, "[2k,4k)"),
        (3_999, "[2k,4k)"),
        (4_000, "[4k,20k]"),
        (20_000, "[4k,20k]"),
        (20_001, ">20k"),
        (30_000, ">20k"),
    ],
)
def test_bucket_edges(required, bucket):
    assert bucket_of(required) == bucket


def test_worked_figure_of_the_spec():
    scores = score_items([Item("a", 100, 200, verdict(4, 4, 4, 4, 4, 4))])
    assert round(scores.s_l, 2) == 66.67 and scores.s_q == 75.0 and round(scores.s, 2) == 70.83


def test_s_q_and_s_on_a_hand_built_judged_set():
    items = [
        Item("a", 100, 100, verdict(5, 5, 5, 5, 5, 5), "en"),  # S_l 100, quality 100
        Item("b", 1000, 500, verdict(3, 3, 3, 3, 3, 3), "zh"),  # S_l 50, quality 50
        Item("c", 3000, 6000, verdict(5, 4, 3, 2, 1, 5), "en"),  # S_l 66.67, quality (20/6 - 1) * 25
        Item("d", 5000, 5000, Unscored("not JSON"), "zh"),  # S_l 100, no quality
        Item("e", 30_000, 0, None, "zh"),  # S_l 0, not judged
    ]
    scores = score_items(items)
    assert scores.s_l == pytest.approx((100 + 50 + 200 / 3 + 100 + 0) / 5)
    quality_c = (20 / 6 - 1) * 25
    assert quality_score(items[2].verdict) == pytest.approx(quality_c)
    assert scores.s_q == pytest.approx((100 + 50 + quality_c) / 3)
    assert scores.s == pytest.approx((scores.s_l + scores.s_q) / 2)
    assert scores.dimensions["Relevance"] == pytest.approx(((5 + 3 + 5) / 3 - 1) * 25)
    assert scores.dimensions["Reading Experience"] == pytest.approx(((5 + 3 + 5) / 3 - 1) * 25)
    assert scores.dimensions["Clarity"] == pytest.approx(((5 + 3 + 2) / 3 - 1) * 25)
    assert (scores.n_items, scores.n_judged, scores.n_scored, scores.n_unscored) == (5, 4, 3, 1)
    assert scores.unscored_reasons == {"not JSON": 1}
    assert list(scores.buckets) == ["[0,500)", "[500,2k)", "[2k,4k)", "[4k,20k]", ">20k"]
    assert scores.buckets["[500,2k)"].s_l == 50.0 and scores.buckets["[4k,20k]"].s_q is None
    assert scores.buckets[">20k"].n_items == 1 and scores.buckets[">20k"].s_l == 0.0
    assert scores.by_language["en"].s_q == pytest.approx((100 + quality_c) / 2)
    assert scores.rows[3] == {
        "id": "d",
        "required": 5000,
        "length": 5000,
        "bucket": "[4k,20k]",
        "language": "zh",
        "s_l": 100.0,
        "s_q": None,
        "unscored": "not JSON",
    }


def test_nothing_scored_gives_no_quality_and_no_overall():
    scores = score_items([Item("a", 100, 100, Unscored("not JSON"))])
    assert scores.s_l == 100.0 and scores.s_q is None and scores.s is None
    assert all(value is None for value in scores.dimensions.values())


def test_a_verdict_out_of_range_is_an_error_not_a_score():
    with pytest.raises(ValueError, match=r"item 0 \(a\)\['Clarity'\]: expected a score in \[1, 5\], got 7"):
        score_items([Item("a", 100, 100, {**verdict(4, 4, 4, 4, 4, 4), "Clarity": 7})])


def test_the_judge_prompt_is_upstream_judge_txt_byte_for_byte(shared_data):
    released = (shared_data / "longbench_write/judge.txt").read_text(encoding="utf-8")
    assert paper_settings().prompt == released
    prompt = judge_prompt("写一首诗 $RESPONSE$", "the poem")
    assert "<User Request>\n\n写一首诗 the poem\n\n</User Request>" in prompt  # $INST$ first, then $RESPONSE$
    assert "<Response>\n\nthe poem\n\n</Response>" in prompt and "$INST$" not in prompt


def test_paper_settings():
    settings = paper_settings()
    assert (settings.generation.temperature, settings.generation.max_new_tokens) == (0.5, 32768)
    assert (settings.judge.model, settings.judge.temperature, settings.judge.attempts) == ("gpt-4o-2024-05-13", 0.5, 5)
    assert settings.judge.max_tokens == 1024 and settings.judge.parser == "strict"
    assert settings.dimensions == DIMENSIONS


@pytest.mark.parametrize("rule", ["strict", "upstream_fill"])
@pytest.mark.parametrize(
    "completion,expected",
    [
        (reply(4, 4, 4, 4, 4, 4), verdict(4, 4, 4, 4, 4, 4)),
        ("Here it is:\n```json\n" + reply(5, 4, 3, 2, 1, 5) + "\n```\nDone.", verdict(5, 4, 3, 2, 1, 5)),
        ("{\n" + reply(2, 2, 2, 2, 2, 2)[1:].replace(", ", ",\n"), verdict(2, 2, 2, 2, 2, 2)),  # newlines dropped
        (reply(*["4"] * 6), verdict(4, 4, 4, 4, 4, 4)),  # strings read with float(), as upstream
        (reply(4.5, 4, 4, 4, 4, 4), verdict(4.5, 4, 4, 4, 4, 4)),  # kept as given, as upstream
        (reply(True, 4, 4, 4, 4, 4), verdict(1, 4, 4, 4, 4, 4)),  # JSON true: upstream's float(True) is 1.0
    ],
)
def test_replies_that_parse(rule, completion, expected):
    parsed = parse_judgement(completion, rule)
    assert parsed.scores == expected and parsed.filled == ()


@pytest.mark.parametrize("rule", ["strict", "upstream_fill"])
@pytest.mark.parametrize(
    "completion,reason",
    [
        ("The response is good. Relevance: 4", "not JSON"),
        ("Analysis first. " + reply(4, 4, 4, 4, 4, 4), "not JSON"),  # upstream does not look for JSON in prose
        ("```json\n" + reply(4, 4, 4, 4, 4, 4), "```json block without its closing fence"),
        (json.dumps([4, 4, 4, 4, 4, 4]), "expected a JSON object, got list"),
        (reply(4, 4, 6, 4, 4, 4), "Coherence: 6 is outside [1, 5]"),
        (reply(0, 4, 4, 4, 4, 4), "Relevance: 0 is outside [1, 5]"),
        (reply(4, 4, 4, 4, 4, None), "Reading Experience: null is not a number"),
        (reply(4, [4], 4, 4, 4, 4), "Accuracy: [4] is not a number"),
        (reply(4, False, 4, 4, 4, 4), "Accuracy: 0 is outside [1, 5]"),  # float(False), as upstream reads it
        (reply(4, 4, 4, "good", 4, 4), 'Clarity: "good" is not a number'),
        (reply(4, 4, 4, 4, 10**400, 4), "Breadth and Depth: 1000000000"),
        (reply(4, 4, 4, 4, 4, "NaN"), "Reading Experience: nan is outside [1, 5]"),
        (None, "expected a string, got NoneType"),
    ],
)
def test_replies_that_are_unscored_under_both_rules(rule, completion, reason):
    parsed = parse_judgement(completion, rule)
    assert isinstance(parsed.scores, Unscored) and parsed.scores.reason.startswith(reason)


def test_a_missing_dimension_is_unscored_by_default_and_filled_with_3_only_on_request():
    partial = json.dumps({"Relevance": 5, "Accuracy": 5, "Coherence": 5, "Breadth and Depth": 5})
    strict = parse_judgement(partial)
    assert strict.scores == Unscored("missing dimensions: Clarity, Reading Experience")
    filled = parse_judgement(partial, "upstream_fill")
    assert filled.scores == verdict(5, 5, 5, 3, 5, 3) and filled.filled == ("Clarity", "Reading Experience")


def test_the_fill_needs_at_least_one_dimension():
    parsed = parse_judgement(json.dumps({"Analysis": "fine"}), "upstream_fill")
    assert parsed.scores == Unscored("none of the six dimensions given")


def test_an_unknown_parser_is_an_error():
    with pytest.raises(ValueError, match="unknown parser rule 'lenient'"):
        parse_judgement(reply(4, 4, 4, 4, 4, 4), "lenient")


@pytest.fixture(scope="module")
def metric():
    return evaluate.load(str(REPO / "metric/longbench_write"))


def test_metric_module_on_a_hand_built_set(metric):
    result = metric.compute(
        predictions=["word " * 200, "中文" * 250, "", "x " * 30_000],
        references=[100, 1000, 400, 30_000],
        judge_completions=[reply(4, 4, 4, 4, 4, 4), reply(5, 5, 5, 5, 5, 5), "oops", None],
    )
    assert result["s_l"] == pytest.approx((200 / 3 + 50.0 + 0.0 + 100.0) / 4)  # 2x, half, empty, exact
    assert result["s_q"] == pytest.approx(87.5) and result["s"] == pytest.approx((result["s_l"] + 87.5) / 2)
    assert (result["n_items"], result["n_judged"], result["n_scored"], result["n_unscored"]) == (4, 4, 2, 2)
    assert result["relevance"] == pytest.approx(87.5) and result["n_filled"] == 0
    assert result["n_0_500"] == 2 and result["s_l_0_500"] == pytest.approx(100 / 3)
    assert result["n_2k_4k"] == 0 and result["s_l_2k_4k"] is None
    assert result["n_above_20k"] == 1 and result["s_l_above_20k"] == 100.0


def test_metric_module_without_judge_gives_length_figures_only(metric):
    result = metric.compute(predictions=["word " * 100], references=[100])
    assert result["s_l"] == 100.0 and result["s_q"] is None and result["s"] is None and result["n_judged"] == 0


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"predictions": ["a"], "references": [0]}, r"references\[0\]: expected a positive required length, got 0"),
        ({"predictions": ["a"], "references": [5], "parser": "fill"}, "unknown parser 'fill'"),
        ({"predictions": ["a"], "references": [5], "judge_completions": []}, "judge_completions has 0 entries"),
    ],
)
def test_metric_module_errors(metric, kwargs, message):
    with pytest.raises(ValueError, match=message):
        metric.compute(**kwargs)


def test_bucket_names_are_the_papers_four_and_one_beyond():
    assert BUCKETS == ("[0,500)", "[500,2k)", "[2k,4k)", "[4k,20k]", ">20k")


def test_metric_doctests_run(monkeypatch):
    results = run_module_doctests(REPO / "metric/longbench_write/longbench_write.py", monkeypatch)
    assert results.attempted >= 10 and results.failed == 0
