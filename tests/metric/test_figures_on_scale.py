"""Every figure on its scale, low <= point <= high: a property test over every kind of figure the package gives an
interval (single, paired, calibrated, PPI++, Elo, Bradley-Terry, agreement, kappa) on seeded random draws and on the
extreme ones (every unit at an end of the scale, one unit, one label, a near-top win rate with rare losses)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np
import pytest

from longform_eval.metric.calibration import Estimate, calibrate_overall, calibrate_win_rate, ppi_mean
from longform_eval.metric.pairwise import Battle, Outcome, bradley_terry
from longform_eval.metric.pairwise.agreement import FOUR_WAY, agreement
from longform_eval.metric.pairwise.elo_intervals import elo_intervals
from longform_eval.metric.uncertainty import Design, Interval, affine, intervals, mean, paired_difference
from longform_eval.metric.uncertainty import stratified_mean as strata_mean

WIN_RATE, HELLOBENCH = (0.0, 1.0), (-300.0, 100.0)
OUTCOMES = list(FOUR_WAY)
DRAWS = 12  # random cases per generator and figure kind


def win_values(rng: np.random.Generator) -> Iterator[np.ndarray]:
    """Win values (0, 0.5, 1): random, all won, all lost, all ties, near the top with a rare loss, two units."""
    n = int(rng.integers(2, 60))
    yield rng.choice([0.0, 0.5, 1.0], n, p=rng.dirichlet(np.ones(3)))
    yield np.ones(n)
    yield np.zeros(n)
    yield np.full(n, 0.5)
    yield np.where(rng.random(n) < 0.03, 0.0, 1.0)
    yield rng.choice([0.0, 1.0], 2)


def row_scores(rng: np.random.Generator) -> Iterator[np.ndarray]:
    """HelloBench row scores (0..100): spread, all 100, near 100 with rare zeros."""
    n = int(rng.integers(4, 40))
    yield rng.uniform(0, 100, n)
    yield np.full(n, 100.0)
    yield np.where(rng.random(n) < 0.05, 0.0, rng.uniform(95, 100, n))


def held(point: float, low: float | None, high: float | None, scale: tuple[float, float], what: str) -> None:
    assert scale[0] <= point <= scale[1], f"{what}: {point} off {scale}"
    if low is not None or high is not None:
        assert low is not None and high is not None, what
        assert scale[0] <= low <= point <= high <= scale[1], f"{what}: {point} [{low}, {high}] on {scale}"


def interval_held(found: Interval | None, scale: tuple[float, float], what: str) -> None:
    if found is not None:
        held(found.point, found.low, found.high, scale, what)


def estimate_held(found: Estimate | None, scale: tuple[float, float], what: str) -> None:
    if found is not None:
        held(found.estimate, found.low, found.high, scale, what)


def cases(generator: Callable[[np.random.Generator], Iterator[np.ndarray]]) -> Iterator[np.ndarray]:
    for seed in range(DRAWS):
        yield from generator(np.random.default_rng(seed))


def test_single_figures_stay_on_their_scale():
    for values in cases(win_values):
        found = intervals({"w": mean(values)}, Design.simple(len(values)), bounds={"w": WIN_RATE})["w"]
        interval_held(found, WIN_RATE, f"win rate of {values}")
    for scores in cases(row_scores):
        tasks = [f"t{i % 3}" for i in range(len(scores))]
        figure, design = affine(strata_mean(scores, tasks), 4, -300), Design.stratified(tasks, by="task")
        interval_held(intervals({"o": figure}, design, bounds={"o": HELLOBENCH})["o"], HELLOBENCH, "overall")


def test_paired_differences_stay_on_their_scale():
    for seed in range(DRAWS):
        rng = np.random.default_rng(seed)
        values = list(win_values(rng))
        for a, b in zip(values, values[1:], strict=False):
            n = min(len(a), len(b))
            found = paired_difference(mean(a[:n]), mean(b[:n]), Design.simple(n), scale=WIN_RATE)
            if found is not None:
                held(found.difference, found.low, found.high, (-1.0, 1.0), f"{a[:n]} - {b[:n]}")


def test_ppi_and_calibrated_figures_stay_on_their_scale():
    for seed in range(DRAWS):
        rng = np.random.default_rng(seed)
        for human in win_values(rng):
            judged = np.where(rng.random(len(human)) < 0.6, human, rng.choice([0.0, 0.5, 1.0], len(human)))
            rest = rng.choice([0.5, 1.0], int(rng.integers(2, 200)), p=[0.1, 0.9])
            estimate_held(ppi_mean(human, judged, rest, scale=WIN_RATE), WIN_RATE, f"ppi {human} {judged}")
        judge = {f"q{i}": str(rng.choice(OUTCOMES, p=[0.9, 0.02, 0.04, 0.04])) for i in range(150)}
        human = [(f"q{i}", "A" if rng.random() < 0.97 else "equally_good") for i in range(int(rng.integers(2, 60)))]
        found = calibrate_win_rate(judge, human)
        for estimate in (found.judge_only, found.human_only, found.ppi):
            estimate_held(estimate, WIN_RATE, "calibrate_win_rate")
        rows = {f"r{i}": (f"t{i % 2}", float(rng.choice([100.0, 100.0, 90.0]))) for i in range(40)}
        people = [(f"r{i}", 100.0) for i in range(int(rng.integers(4, 20)))]
        overall = calibrate_overall(rows, people)
        for estimate in (overall.judge_only, overall.human_only, overall.ppi):
            estimate_held(estimate, HELLOBENCH, "calibrate_overall")


def battles_of(rng: np.random.Generator) -> Iterator[list[Battle]]:
    """Random battles among three models, a sweep (one model wins all), and all ties."""
    models = ["x", "y", "z"]
    random = []
    for _ in range(int(rng.integers(20, 80))):
        a, b = rng.choice(models, 2, replace=False)
        random.append(Battle(str(a), str(b), Outcome(str(rng.choice(OUTCOMES)))))
    yield random
    yield [Battle("x", "y", Outcome.A)] * 25
    yield [Battle("x", "y", Outcome.EQUALLY_BAD)] * 25


def test_elo_and_bradley_terry_hold_their_ratings():
    for seed in range(DRAWS // 2):
        for battles in battles_of(np.random.default_rng(seed)):
            spans, bt = elo_intervals(battles, bootstrap=30, seed=seed), bradley_terry(battles, bootstrap=30)
            for model in bt.models:
                if spans.lower[model] is not None:
                    assert spans.lower[model] <= spans.ratings[model] <= spans.upper[model]
                    assert spans.lower[model] < spans.upper[model]
                if bt.lower[model] is not None:
                    assert bt.lower[model] <= bt.ratings[model] <= bt.upper[model] and bt.lower[model] < bt.upper[model]
                if bt.lower[model] is None:  # Elo has no interval where Bradley-Terry has none
                    assert spans.lower[model] is None and spans.reasons[model]


def label_pairs(rng: np.random.Generator) -> Iterator[tuple[list[str], list[str]]]:
    n = int(rng.integers(1, 50))
    human = [str(x) for x in rng.choice(OUTCOMES, n)]
    yield human, [h if rng.random() < 0.7 else str(rng.choice(OUTCOMES)) for h in human]
    yield human, human
    yield ["A"] * n, ["A"] * n
    yield ["A"] * n, ["B"] * n


def test_agreement_and_kappa_stay_on_their_scales_on_either_label_set():
    for seed in range(DRAWS):
        for human, judge in label_pairs(np.random.default_rng(seed)):
            for labels in (3, 4):
                found = agreement(human, judge, labels=labels)
                interval_held(found.agreement_interval, WIN_RATE, f"agreement {human} {judge}")
                interval_held(found.kappa_interval, (-1.0, 1.0), f"kappa {human} {judge}")
                for name, spread in (("agreement", found.agreement_interval), ("cohen_kappa", found.kappa_interval)):
                    assert spread is not None or found.reasons[name], (name, human, judge)


@pytest.mark.parametrize(
    "made",
    [
        lambda: Interval(1.2, 0.9, 1.0, 0.1, 5, rounds=0),
        lambda: Estimate("ppi++", 1.12, 1.05, 1.0, 0.02, 30, 230),
        lambda: Estimate("ppi++", 0.5, 0.4, None, 0.02, 30, 230),
    ],
)
def test_an_interval_that_does_not_hold_its_figure_is_never_made(made):
    with pytest.raises(ValueError, match="interval"):
        made()
