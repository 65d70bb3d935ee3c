"""Length-controlled win rate, style-controlled Bradley-Terry and fixed-order Elo on the PandaLM human battles."""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pytest

from longform_eval.metric.pairwise import (
    Battle,
    Outcome,
    StyleFeatures,
    bradley_terry,
    elo_ratings,
    instruction_difficulty,
    length_controlled_win_rates,
    majority,
    style_controlled_bradley_terry,
    style_features,
    win_rate_matrix,
)

A, B, EG, EB = Outcome.A, Outcome.B, Outcome.EQUALLY_GOOD, Outcome.EQUALLY_BAD
PANDALM_LABELS = {"1": A, "2": B, "0": EG}
ANNOTATORS = ("annotator1", "annotator2", "annotator3")
BASELINE = "llama-7b"


def answer(value: object) -> str:
    """PandaLM stores six answers "True" as JSON booleans; read them back as the text."""
    return value if isinstance(value, str) else str(value)


@pytest.fixture(scope="module")
def pandalm(shared_data):
    """Human-majority battles in file order, the two answers of each, and each item's instruction."""
    items = json.loads((shared_data / "pandalm/testset-v1.json").read_text())
    battles = [
        Battle(
            *x["cmp_key"].split("_"),
            majority([PANDALM_LABELS[str(x[a])] for a in ANNOTATORS]),
            item_id=str(x["idx"]),
        )
        for x in items
    ]
    answers = [(answer(x["response1"]), answer(x["response2"])) for x in items]
    instructions = [x["instruction"] + "\n" + x["input"] for x in items]
    return battles, answers, instructions


@pytest.fixture(scope="module")
def char_lengths(pandalm):
    _, answers, _ = pandalm
    return [(len(a), len(b)) for a, b in answers]


def with_outcomes(battles: list[Battle], outcomes: list[Outcome]) -> list[Battle]:
    return [dataclasses.replace(b, outcome=o) for b, o in zip(battles, outcomes, strict=True)]


def padded(battles: list[Battle], pairs: list, model: str, pad) -> list:
    """Each pair (A, B) with `pad` applied to the side where `model` answered."""
    return [
        (pad(x) if b.model_a == model else x, pad(y) if b.model_b == model else y)
        for b, (x, y) in zip(battles, pairs, strict=True)
    ]


# Length-controlled win rate


def test_lc_on_pandalm_keeps_the_plain_win_rate_and_finds_that_longer_answers_win(pandalm, char_lengths):
    battles, _, _ = pandalm
    models, matrix = win_rate_matrix(battles)
    result = length_controlled_win_rates(battles, char_lengths, BASELINE)
    assert sorted(result) == sorted(set(models) - {BASELINE})
    for model, r in result.items():
        met = [b for b in battles if {b.model_a, b.model_b} == {model, BASELINE}]
        assert r.n == len(met)
        assert r.win_rate == pytest.approx(matrix[models.index(model), models.index(BASELINE)], abs=1e-12)
        assert 0 < r.length_controlled < 1
        assert r.standard_error == pytest.approx(0, abs=1e-12)  # without difficulty every prediction is the same
        assert r.coefficients["length"] > 0  # PandaLM's annotators preferred the longer answer
    print({m: (round(r.win_rate, 4), round(r.length_controlled, 4)) for m, r in result.items()})


def test_lc_with_equal_lengths_is_the_plain_win_rate_or_shrunk_towards_a_half(pandalm):
    battles, _, _ = pandalm
    same = [(100, 100)] * len(battles)
    checked = 0
    for baseline in ("llama-7b", "opt-7b", "bloom-7b"):
        for r in length_controlled_win_rates(battles, same, baseline).values():
            assert r.coefficients["length"] == 0
            lower, upper = sorted((r.win_rate, 0.5))
            assert lower - 1e-9 <= r.length_controlled <= upper + 1e-9
            if r.coefficients["model"] != 0:  # the cross-validated L1 fit kept the model term
                assert r.length_controlled == pytest.approx(r.win_rate, abs=0.005)
                checked += 1
    assert checked >= 8


def test_lc_of_the_baseline_against_a_model_is_the_complement(pandalm, char_lengths):
    battles, _, _ = pandalm
    for model in ("opt-7b", "bloom-7b"):
        forward = length_controlled_win_rates(battles, char_lengths, BASELINE)[model]
        backward = length_controlled_win_rates(battles, char_lengths, model)[BASELINE]
        assert backward.win_rate == pytest.approx(1 - forward.win_rate, abs=1e-12)
        assert backward.length_controlled == pytest.approx(1 - forward.length_controlled, abs=1e-6)


def test_a_model_that_wins_only_by_being_longer_loses_its_advantage(pandalm, char_lengths):
    battles, _, _ = pandalm
    model = "opt-7b"
    lengths = padded(battles, char_lengths, model, lambda n: n + 300)
    rng = np.random.default_rng(0)
    # The simulated judge looks at nothing but the length difference of the two answers.
    p_a = [1 / (1 + math.exp(-2 * math.tanh((a - b) / 300))) for a, b in lengths]
    outcomes = [A if rng.random() < p else B for p in p_a]
    judged = with_outcomes(battles, outcomes)
    plain, controlled = [], []
    for baseline in ("llama-7b", "bloom-7b", "pythia-6.9b", "cerebras-gpt-6.7B"):
        r = length_controlled_win_rates(judged, lengths, baseline)[model]
        plain.append(r.win_rate)
        controlled.append(r.length_controlled)
    print("plain", np.round(plain, 3), "length-controlled", np.round(controlled, 3))
    assert np.mean(plain) > 0.7
    assert abs(np.mean(controlled) - 0.5) < 0.1


def test_instruction_difficulty_covers_the_instructions_met_and_feeds_the_glm(pandalm, char_lengths):
    battles, _, instructions = pandalm
    difficulty = instruction_difficulty(battles, char_lengths, BASELINE, instructions)
    met = {i for b, i in zip(battles, instructions, strict=True) if BASELINE in (b.model_a, b.model_b)}
    assert set(difficulty) == met
    assert difficulty[min(met)] == 0.0
    assert any(value != 0 for value in difficulty.values())
    per_battle = [difficulty.get(i, 0.0) for i in instructions]
    for r in length_controlled_win_rates(battles, char_lengths, BASELINE, per_battle).values():
        assert set(r.coefficients) == {"length", "difficulty", "model"}
        assert 0 < r.length_controlled < 1
        assert r.standard_error > 0  # the predictions now vary with the instruction


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda lengths, diff: (lengths[:-1], None), "lengths has 998 entries for 999 battles"),
        (lambda lengths, diff: ([(-1, 3)] + lengths[1:], None), r"lengths\[0\]"),
        (lambda lengths, diff: (lengths[:5] + [(True, 3)] + lengths[6:], None), r"lengths\[5\]"),
        (lambda lengths, diff: (lengths, diff[:2] + [math.nan] + diff[3:]), r"difficulty\[2\]"),
        (lambda lengths, diff: (lengths, diff[:10]), "difficulty has 10 entries for 999 battles"),
    ],
)
def test_lc_rejects_bad_input_naming_the_position(pandalm, char_lengths, change, message):
    battles, _, _ = pandalm
    lengths, difficulty = change(list(char_lengths), [0.0] * len(battles))
    with pytest.raises(ValueError, match=message):
        length_controlled_win_rates(battles, lengths, BASELINE, difficulty)


def test_lc_rejects_an_unknown_baseline_and_too_few_battles(pandalm, char_lengths):
    battles, _, _ = pandalm
    with pytest.raises(ValueError, match="baseline 'gpt-4' is in no battle"):
        length_controlled_win_rates(battles, char_lengths, "gpt-4")
    with pytest.raises(ValueError, match="baseline: expected a model name"):
        length_controlled_win_rates(battles, char_lengths, "")
    few = [i for i, b in enumerate(battles) if {b.model_a, b.model_b} == {"opt-7b", BASELINE}][:4]
    with pytest.raises(ValueError, match="'opt-7b' has 4 battles against 'llama-7b'"):
        length_controlled_win_rates([battles[i] for i in few], [char_lengths[i] for i in few], BASELINE)


# Style-controlled Bradley-Terry


def test_style_features_count_markdown_as_arena_hard():
    text = (
        "# Title\n## Part\n####### not a header\n#no space\n"
        "1. one\n  2. two\n- dash\n* star\n+ plus\n-no space\n"
        "**bold** and __also bold__ and **not\nbold**\n"
        "```\n# inside code\n- inside code\n**inside**\n```\n"
    )
    assert style_features(text) == StyleFeatures(tokens=len(text.split()), headers=2, lists=5, bold=2)
    assert style_features("a b c", count_tokens=len).tokens == 5


def test_style_control_with_constant_styles_is_plain_bt(pandalm):
    battles, _, _ = pandalm
    constant = [(StyleFeatures(50, 1, 2, 0), StyleFeatures(50, 1, 2, 0))] * len(battles)
    controlled = style_controlled_bradley_terry(battles, constant, bootstrap=5, seed=3)
    plain = bradley_terry(battles, bootstrap=5, seed=3)
    assert controlled.models == plain.models
    for field in ("ratings", "lower", "upper"):
        for model in plain.models:
            assert getattr(controlled, field)[model] == pytest.approx(getattr(plain, field)[model], abs=1e-3)
    # Exactly 0: a constant style is an all-zero column, whose coefficient the fit never moves from 0.
    assert controlled.style == dict.fromkeys(("tokens", "headers", "lists", "bold"), 0.0)


def test_style_control_removes_an_advantage_that_comes_only_from_length(pandalm):
    battles, answers, _ = pandalm
    model = "opt-7b"
    styles = [(style_features(a), style_features(b)) for a, b in answers]
    styles = padded(battles, styles, model, lambda s: dataclasses.replace(s, tokens=s.tokens + 50))
    rng = np.random.default_rng(0)
    # The simulated judge prefers the answer with more tokens and looks at nothing else.
    p_a = [1 / (1 + math.exp(-3 * (a.tokens - b.tokens) / (a.tokens + b.tokens + 1))) for a, b in styles]
    outcomes = [A if rng.random() < p else B for p in p_a]
    judged = with_outcomes(battles, outcomes)

    def advantage(ratings: dict[str, float]) -> float:
        return ratings[model] - np.mean([r for m, r in ratings.items() if m != model])

    plain = bradley_terry(judged, bootstrap=0)
    controlled = style_controlled_bradley_terry(judged, styles, bootstrap=0)
    print(f"advantage plain {advantage(plain.ratings):.1f}, style-controlled {advantage(controlled.ratings):.1f}")
    assert advantage(plain.ratings) > 150
    assert abs(advantage(controlled.ratings)) < 50
    assert controlled.style["tokens"] > 1


def test_style_control_on_pandalm_has_intervals_around_the_ratings(pandalm):
    battles, answers, _ = pandalm
    styles = [(style_features(a), style_features(b)) for a, b in answers]
    result = style_controlled_bradley_terry(battles, styles, bootstrap=10, seed=0)
    assert np.mean(list(result.ratings.values())) == pytest.approx(1000.0)
    for model in result.models:
        assert result.lower[model] <= result.ratings[model] <= result.upper[model]
    assert result.style["tokens"] > 0  # longer answers won more often
    assert result.style["bold"] == 0.0  # no PandaLM answer has bold text: a constant covariate


def test_style_control_rejects_bad_input_naming_the_position_or_field(pandalm):
    battles, _, _ = pandalm
    style = StyleFeatures(10, 0, 0, 0)
    with pytest.raises(ValueError, match="styles has 1 entry for 2 battles"):
        style_controlled_bradley_terry(battles[:2], [(style, style)])
    with pytest.raises(ValueError, match=r"styles\[1\]: expected \(style of A, style of B\)"):
        style_controlled_bradley_terry(battles[:2], [(style, style), (style, {"tokens": 3})])
    with pytest.raises(ValueError, match="headers: expected a count"):
        StyleFeatures(tokens=3, headers=-1, lists=0, bold=0)
    with pytest.raises(ValueError, match="tokens: expected a count"):
        StyleFeatures(tokens=2.5, headers=0, lists=0, bold=0)
    with pytest.raises(ValueError, match="penalty_c must be a positive number"):
        style_controlled_bradley_terry(battles[:2], [(style, style)] * 2, penalty_c=0.0)
    with pytest.raises(ValueError, match="expected the answer as a string"):
        style_features(None)


# Elo in a fixed order (FastChat's compute_elo)


def test_elo_in_file_order_is_one_sequential_pass(pandalm):
    battles, _, _ = pandalm
    ratings = dict.fromkeys({b.model_a for b in battles} | {b.model_b for b in battles}, 1000.0)
    for b in battles:
        expected = 1 / (1 + 10 ** ((ratings[b.model_b] - ratings[b.model_a]) / 400))
        score = {A: 1.0, B: 0.0}.get(b.outcome, 0.5)
        ratings[b.model_a] += 4 * (score - expected)
        ratings[b.model_b] -= 4 * (score - expected)
    fixed = elo_ratings(battles, rounds=1, shuffle=False)
    assert fixed == pytest.approx(ratings, abs=1e-9)
    assert elo_ratings(battles, rounds=3, shuffle=False) == pytest.approx(fixed, abs=1e-9)
    assert elo_ratings(battles[::-1], rounds=1, shuffle=False) != pytest.approx(fixed, abs=1e-3)
    assert elo_ratings(battles) == elo_ratings(battles, shuffle=True)  # the same call (the default): bit-identical
