"""One agreement: `judge-agreement`, `calibrate`, the `pairwise` metric and the Space make judge-human agreement and
Cohen's kappa with the one `Agreement`, on a label set each names beside its figures (3: A, B, tie; 4: the four
outcomes), with one resample count; the wrappers that gave other figures for the same votes are gone."""

from __future__ import annotations

import importlib
import random
from pathlib import Path

import evaluate
import pytest

from longform_eval.inference.cli.agreement import agreement_lines
from longform_eval.inference.report.calibration_view import figure_lines
from longform_eval.inference.runner.judge_agreement import compared
from longform_eval.metric.calibration import calibrate_win_rate
from longform_eval.metric.pairwise import Outcome
from longform_eval.metric.pairwise.agreement import agreement, judge_agreement
from longform_eval.metric.uncertainty.label_agreement import RESAMPLES
from longform_eval.spaces.board_text import ARENA_HEADERS, arena_note
from longform_eval.spaces.leaderboard import agreement_summary, summary_text
from longform_eval.spaces.standings import LABEL_SET, agreement_scores
from longform_eval.spaces.storage import Vote

REPO = Path(__file__).resolve().parents[2]
OUTCOMES = ["A", "B", "equally_good", "equally_bad"]
FOUR = "4 labels: A, B, equally_good, equally_bad"


def forty_votes() -> list[Vote]:
    """40 votes with the judge's verdict, which often says "equally bad" where the voter said "equally good"."""
    rng = random.Random(47)
    votes = []
    for n in range(40):
        human = rng.choice(OUTCOMES)
        judge = human if rng.random() < 0.7 else rng.choice(OUTCOMES)
        judge = "equally_bad" if human == "equally_good" and rng.random() < 0.3 else judge
        votes.append(Vote("ann", "s", f"tencentllmeval:en/q{n}", "m1", "m2", "sorted", human, judge))
    return votes


def figures(found) -> tuple:
    spans = (found.agreement_interval, found.kappa_interval)
    return found.agreement, found.cohen_kappa, *((s.low, s.high) for s in spans)


def test_calibrate_the_metric_the_space_and_judge_agreement_give_one_agreement_on_the_same_votes():
    votes = forty_votes()
    human, judge = [v.outcome for v in votes], [v.judge_outcome for v in votes]
    items = {f"q{n}": v.judge_outcome for n, v in enumerate(votes)}
    calibrated = calibrate_win_rate(items, [(f"q{n}", v.outcome) for n, v in enumerate(votes)]).agreement
    verdicts, references = dict(enumerate(map(Outcome, judge))), dict(enumerate(human))
    four = judge_agreement(verdicts, references, labels=4)
    assert figures(calibrated) == figures(four) == figures(agreement(human, judge, labels=4, unit="vote"))
    metric = evaluate.load(str(REPO / "metric/pairwise")).compute(predictions=judge, references=human)  # labels=4
    assert (metric["agreement"], metric["cohen_kappa"], metric["labels"]) == (four.agreement, four.cohen_kappa, FOUR)
    assert (metric["cohen_kappa_lower"], metric["cohen_kappa_upper"]) == figures(four)[3]
    agreed, kappa = agreement_scores(votes)
    assert (agreed.point, kappa.point, (agreed.low, agreed.high), (kappa.low, kappa.high)) == figures(four)
    three = compared(verdicts, references)  # judge-agreement's: PandaLM's humans give three labels
    assert three["label_set"] == "3 labels: A, B, tie" and calibrated.label_set == four.label_set == LABEL_SET == FOUR
    assert (three["agreement"], three["cohen_kappa"]) != (four.agreement, four.cohen_kappa)  # another label set
    assert judge_agreement(verdicts, references, labels=3).to_dict() == three
    pairwise = evaluate.load(str(REPO / "metric/pairwise"))
    on_three = pairwise.compute(predictions=judge, references=human, labels=3)
    assert (on_three["agreement"], on_three["cohen_kappa"], on_three["labels"]) == (
        three["agreement"],
        three["cohen_kappa"],
        three["label_set"],
    )
    with pytest.raises(ValueError, match="labels must be 3"):
        pairwise.compute(predictions=judge, references=human, labels=5)


def test_every_kappa_interval_rests_on_the_one_resample_count():
    votes = forty_votes()
    human, judge = [v.outcome for v in votes], [v.judge_outcome for v in votes]
    for labels in (3, 4):
        spread = agreement(human, judge, labels=labels).kappa_interval
        assert spread.rounds + spread.dropped == RESAMPLES == 2000
    assert f"over {RESAMPLES} resamples" in arena_note([])  # the Space says the count it uses


def test_the_label_set_is_printed_beside_every_agreement_and_kappa():
    votes = forty_votes()
    verdicts, references = {v.item_id: Outcome(v.judge_outcome) for v in votes}, {v.item_id: v.outcome for v in votes}
    document = {
        "judge": "replay:j",
        "mode": "pairwise",
        "source": "pandalm",
        "n_items": 40,
        "n_human_majority": 40,
        "interval_method": "m",
        "agreement": compared(verdicts, references),
        "released": {},
    }
    assert any("| 3 labels: A, B, tie |" in line for line in agreement_lines(document))  # agreement.md
    items = {f"q{n}": v.judge_outcome for n, v in enumerate(votes)}
    figure = calibrate_win_rate(items, [(f"q{n}", v.outcome) for n, v in enumerate(votes)]).to_dict()
    lines = figure_lines({"level": 0.95}, "win_rate", figure | {"scale": "0..1"})
    assert any(f"40 matched labels ({FOUR}): 0." in line for line in lines)  # calibrate and report
    assert f"both on {FOUR}" in summary_text(agreement_summary(votes))  # the Space's summary and its table
    assert "judge-human agreement (4 labels) [95% CI]" in ARENA_HEADERS and "Cohen's kappa (4 labels) [95% CI]" in (
        ARENA_HEADERS
    )
    assert FOUR in arena_note([])


@pytest.mark.parametrize(
    ("module", "name"),
    [
        ("longform_eval.metric.pairwise.agreement", "kappa"),
        ("longform_eval.metric.pairwise.agreement_intervals", "agreement_intervals"),
        ("longform_eval.metric.pairwise.agreement_intervals", "weighted_kappa"),
        ("longform_eval.metric.pairwise.agreement_intervals", "interval_notes"),
        ("longform_eval.metric.uncertainty.label_agreement", "kappa"),
        ("longform_eval.metric.uncertainty.label_agreement", "LabelAgreement"),
        ("longform_eval.metric.calibration", "agreement_intervals"),
        ("longform_eval.spaces.standings", "AGREEMENT_ROUNDS"),
    ],
)
def test_the_wrappers_are_gone(module, name):
    assert not hasattr(importlib.import_module(module), name)
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("longform_eval.metric.calibration.agreement")


def test_every_label_the_same_gives_no_agreement_interval_and_says_why():
    found = agreement(["A"] * 20, ["A"] * 20, labels=4, unit="vote")
    assert found.agreement == 1.0 and found.agreement_interval is None and found.cohen_kappa is None
    assert found.reasons["agreement"].startswith("every label on both sides is 'A' (20 votes): the two cannot disagree")
    varied = agreement(["A", "B"] * 10, ["A", "B"] * 10, labels=4, unit="vote")  # 20 of 20 alike, labels that vary
    assert varied.agreement_interval.low == pytest.approx(0.839, abs=5e-4) and varied.agreement_interval.high == 1.0
