"""The Arena table without a browser: ranks with rank ranges, the minimum-votes rule, intervals, the judge beside the
humans (agreement, Cohen's kappa), the calibrated figure only with enough votes, a sentence for every empty table,
and names by model and benchmark; over synthetic votes and over judged pairwise run folders."""

from __future__ import annotations

import json
import random
import re
import shutil
from dataclasses import replace

import pytest
from sklearn.metrics import cohen_kappa_score

from longform_eval.metric.calibration import ppi_mean
from longform_eval.metric.pairwise.agreement import agreement
from longform_eval.spaces.app import build_app
from longform_eval.spaces.arena import Arena
from longform_eval.spaces.board_text import ARENA_HEADERS, NO_JUDGE, NO_RUN_SCORES, NO_VOTES, arena_cells
from longform_eval.spaces.leaderboard import compute_board
from longform_eval.spaces.pool import ResponsePool
from longform_eval.spaces.run_names import judged_pairs, model_name, named, run_name
from longform_eval.spaces.standings import (
    MIN_CALIBRATION_VOTES,
    MIN_VOTES,
    SEED,
    JudgedPair,
    agreement_scores,
    standings,
)
from longform_eval.spaces.storage import Vote, VoteStore

from .judged_runs import REFERENCE, judged_run, questions, run_verdicts, vote_on_run

CELL = re.compile(r"^(-?\d+\.\d)% \[(-?\d+\.\d), (-?\d+\.\d)\]$")
KAPPA = re.compile(r"^(-?\d\.\d\d) \[(-?\d\.\d\d), (-?\d\.\d\d)\]$")


def votes_between(pairs: dict[tuple[str, str], float], each: int, seed: int = 0, judge=None) -> list[Vote]:
    """`each` votes per pair (a, b), a winning with the given probability; `judge(vote outcome, rng)` the verdict."""
    rng = random.Random(seed)
    votes = []
    for (a, b), p in pairs.items():
        for n in range(each):
            outcome = "A" if rng.random() < p else "B"
            verdict = judge(outcome, rng) if judge else None
            votes.append(Vote("ann", "s", f"hellobench:all/{a}{b}{n}", a, b, "sorted", outcome, verdict))
    return votes


def test_ranks_come_with_rank_ranges_and_every_score_with_its_interval():
    clear = votes_between({("top", "mid"): 0.9, ("mid", "low"): 0.9, ("top", "low"): 0.95}, 40)
    rows = standings(clear, rounds=300)
    assert [(r.model, r.rank.rank) for r in rows] == [("top", 1), ("mid", 2), ("low", 3)]
    assert [(r.rank.best, r.rank.worst) for r in rows] == [(1, 1), (2, 2), (3, 3)]
    close = votes_between({("x", "y"): 0.5, ("y", "z"): 0.55, ("x", "z"): 0.5}, 25, seed=1)
    ranges = [(r.rank.best, r.rank.worst) for r in standings(close, rounds=300)]
    assert all(best <= rank <= worst for rank, (best, worst) in zip([1, 2, 3], ranges, strict=True))
    assert any(best < worst for best, worst in ranges)  # close models share ranks
    for row in rows:
        assert row.win_rate.low <= row.win_rate.point <= row.win_rate.high and row.win_rate.low < row.win_rate.high
        assert row.rating.low <= row.rating.point <= row.rating.high
    cells = arena_cells(rows)
    assert len(cells[0]) == len(ARENA_HEADERS) and cells[0][1] == "1" and cells[0][2] == "top · hellobench:all"
    low, point, high = (float(x) for x in CELL.match(cells[0][4]).group(2, 1, 3))
    assert low <= point <= high and abs(point - 100 * rows[0].win_rate.point) < 0.06
    assert arena_cells(standings(close, rounds=300))[0][1] in {f"{a}–{b}" for a in (1, 2) for b in (2, 3)}


def test_a_model_is_ranked_from_the_minimum_number_of_votes_and_listed_below_before():
    votes = votes_between({("a", "b"): 0.6}, MIN_VOTES) + votes_between({("c", "a"): 0.5}, MIN_VOTES - 1, seed=2)
    rows = standings(votes, rounds=200)
    ranked = {r.model: r for r in rows if r.rank}
    assert set(ranked) == {"a", "b"} and ranked["b"].votes == MIN_VOTES  # exactly the minimum: ranked
    assert rows[-1].model == "c" and rows[-1].rank is None and rows[-1].votes == MIN_VOTES - 1
    board = compute_board(votes, bootstrap=10)
    assert [plain_name(row[2]) for row in board.arena] == [r.model + " · hellobench:all" for r in rows[:2]]
    assert f"at least {MIN_VOTES} human votes" in board.arena_note
    listed = f"c · hellobench:all ({MIN_VOTES - 1} votes)"
    assert board.unranked == f"**Unranked** (fewer than {MIN_VOTES} human votes): {listed}."


def plain_name(cell: str) -> str:
    return cell.replace("\\", "")


def test_the_judge_beside_the_humans_agreement_and_kappa():
    flips = {"A": "B", "B": "A"}
    votes = votes_between({("m1", "m2"): 0.7}, 60, judge=lambda o, rng: o if rng.random() < 0.6 else flips[o])
    rows = {r.model: r for r in standings(votes, rounds=200)}
    human = sum(v.outcome == "A" for v in votes) / len(votes)
    judge = sum(v.judge_outcome == "A" for v in votes) / len(votes)
    assert abs(rows["m1"].win_rate.point - human) < 1e-12 and abs(rows["m1"].judge_win_rate.point - judge) < 1e-12
    assert abs(rows["m2"].judge_win_rate.point - (1 - judge)) < 1e-12 and rows["m1"].judged == 60
    agreed = sum(v.outcome == v.judge_outcome for v in votes) / len(votes)
    kappa = cohen_kappa_score([v.outcome for v in votes], [v.judge_outcome for v in votes])
    assert abs(rows["m1"].agreement.point - agreed) < 1e-12 and abs(rows["m1"].kappa.point - kappa) < 1e-12
    low, high = rows["m1"].judge_win_rate.low, rows["m1"].judge_win_rate.high
    assert low <= judge <= high < 1
    assert "Cohen's kappa" in compute_board(votes, bootstrap=10).summary


def test_agreement_and_kappa_carry_the_packages_one_agreement_and_its_seeded_intervals():
    flips = {"A": "B", "B": "A"}
    votes = votes_between({("m1", "m2"): 0.7}, 60, judge=lambda o, rng: o if rng.random() < 0.7 else flips[o])
    human, judge = [v.outcome for v in votes], [v.judge_outcome for v in votes]
    found = agreement(human, judge, labels=4, unit="vote", seed=SEED)  # what calibrate and the metric make
    expected = {
        "agreement": [found.agreement_interval.low, found.agreement_interval.high],
        "kappa": [found.kappa_interval.low, found.kappa_interval.high],
    }
    rows = {r.model: r for r in standings(votes, rounds=200)}
    for row in rows.values():  # both models are in every vote: the same votes, the same intervals
        assert (row.agreement.low, row.agreement.high) == pytest.approx(tuple(expected["agreement"]), abs=1e-12)
        assert (row.kappa.low, row.kappa.high) == pytest.approx(tuple(expected["kappa"]), abs=1e-12)
        assert row.agreement.low <= row.agreement.point <= row.agreement.high
        assert row.kappa.low < row.kappa.point < row.kappa.high
    cells = arena_cells(standings(votes, rounds=200))
    assert cells == arena_cells(standings(votes, rounds=200))  # seeded: the page is the same at every build
    agreed, kappa = CELL.match(cells[0][7]), KAPPA.match(cells[0][8])
    assert agreed and kappa, cells[0]
    assert float(agreed.group(2)) <= float(agreed.group(1)) <= float(agreed.group(3))
    assert abs(float(agreed.group(2)) - 100 * expected["agreement"][0]) < 0.051
    assert abs(float(kappa.group(3)) - expected["kappa"][1]) < 0.0051
    summary = compute_board(votes, bootstrap=10).summary
    whole = agreement_scores(votes)  # over every vote with a verdict: here the same votes
    assert f"human-judge: {100 * whole[0].point:.1f}% [{100 * whole[0].low:.1f}, {100 * whole[0].high:.1f}]" in summary
    assert f"Cohen's kappa {whole[1].point:.2f} [{whole[1].low:.2f}, {whole[1].high:.2f}]" in summary
    flipped = [replace(v, judge_flipped=n % 4 == 0) for n, v in enumerate(votes)]
    flips = compute_board(flipped, bootstrap=10).summary
    assert re.search(r"judge flip rate: 25\.0% \[(\d+\.\d), (\d+\.\d)\]", flips), flips
    low, high = (float(x) for x in re.search(r"flip rate: 25\.0% \[(\d+\.\d), (\d+\.\d)\]", flips).groups())
    assert low < 25 < high


def test_agreement_without_an_interval_says_why():
    one = votes_between({("m1", "m2"): 0.5}, 1, judge=lambda o, rng: o)
    agreed, kappa = agreement_scores(one)
    assert agreed.point == pytest.approx(1.0) and agreed.low is None and agreed.reason.startswith("one vote")
    assert kappa is None
    alike = votes_between({("m1", "m2"): 0.5}, MIN_VOTES, seed=4, judge=lambda o, rng: o)  # the judge always agrees
    assert {v.outcome for v in alike} == {"A", "B"}
    row = arena_cells(standings(alike, rounds=100))[0]
    # 20 of 20 alike: still uncertain (Wilson's interval reaches down); kappa is 1 on every resample: no spread
    assert re.fullmatch(r"100\.0% \[8\d\.\d, 100\.0\]", row[7]), row[7]
    assert row[8] == "1.00 [no interval: kappa does not vary over resamples of the votes: no spread to estimate]"
    unjudged = arena_cells(standings(votes_between({("m1", "m2"): 0.5}, MIN_VOTES), rounds=100))[0]
    assert unjudged[7] == unjudged[8] == "-"
    # one B among 20 votes, the judge agreeing: a third of the resamples miss it, and kappa is undefined on them
    rare = [Vote("ann", "s", f"hellobench:all/q{n}", "m1", "m2", "sorted", o, o) for n, o in enumerate("A" * 19 + "B")]
    kappa = agreement_scores(rare)[1]
    assert kappa.point == pytest.approx(1.0) and kappa.low is None
    assert kappa.reason == "kappa does not vary over resamples of the votes: no spread to estimate"


def test_the_calibrated_figure_needs_enough_votes_with_a_verdict_and_judge_only_comparisons():
    biased = {"A": "A", "B": "A"}  # the judge always prefers m1
    enough = votes_between({("m1", "m2"): 0.5}, MIN_CALIBRATION_VOTES, judge=lambda o, rng: biased[o])
    rest = [JudgedPair(f"hellobench:all/rest{n}", "m1", "m2", "A") for n in range(50)]
    rest.append(JudgedPair(enough[0].item_id, "m2", "m1", "B"))  # a voted comparison: not judge-only
    rows = {r.model: r for r in standings(enough, rest, rounds=200)}
    found = rows["m1"].calibrated
    human = [1.0 if v.outcome == "A" else 0.0 for v in enough]
    expected = ppi_mean(human, [1.0] * len(enough), [1.0] * 50, clusters=[v.item_id for v in enough])
    assert found is not None and abs(found.estimate - expected.estimate) < 1e-12 and found.n_judge == len(enough) + 50
    assert found.low <= found.estimate <= found.high and rows["m1"].judge_win_rate.point == pytest.approx(1.0)
    assert found.high < rows["m1"].judge_win_rate.point  # the bias is corrected: the judge's 100% is outside
    few = standings(enough[1:], rest, rounds=200)
    assert all(r.calibrated is None for r in few) and all(r.rank for r in few)
    assert "No calibrated figure yet: fewer than" in compute_board(enough[1:], bootstrap=10).arena_note
    assert all(r.calibrated is None for r in standings(enough, rounds=200))  # no judge-only comparison
    assert "no judge-only comparison" in compute_board(enough, bootstrap=10).arena_note


def test_every_empty_table_has_a_sentence_saying_why():
    board = compute_board([], bootstrap=10)
    assert board.arena == [] and board.arena_note.startswith(NO_VOTES) and "vote in the Arena tab" in NO_VOTES
    for note, rows in [(board.human_note, board.human), (board.judge_note, board.judge)]:
        assert rows == [] and note.endswith(NO_VOTES)
    assert board.annotators_note.endswith(NO_VOTES) and board.runs_note.endswith(NO_RUN_SCORES)
    few = compute_board(votes_between({("a", "b"): 0.5}, 3), bootstrap=10)
    assert few.arena == [] and f"fewer than {MIN_VOTES} human votes per model" in few.arena_note
    assert few.judge == [] and few.judge_note.endswith(NO_JUDGE) and "(3 votes)" in few.unranked


@pytest.mark.parametrize(
    ("label", "name"),
    [
        ("replay:/tmp/pytest/runs/a.jsonl", "replay:a"),
        ("/root/.cache/huggingface/hub/models--x/snapshots/abc/gpt4o_0806", "gpt4o_0806"),
        ("replay:/tmp/b.jsonl (second)", "replay:b (second)"),
        ("openai:gpt-4o", "openai:gpt-4o"),
        ("vllm:meta-llama/Llama-3-8B", "vllm:meta-llama/Llama-3-8B"),
        (REFERENCE, REFERENCE),
    ],
)
def test_models_are_named_without_their_paths(label, name):
    assert model_name(label) == name


def test_runs_are_named_by_model_and_benchmark():
    assert named("gpt4o_0806", ["hellobench:chat"]) == "gpt4o_0806 · hellobench:chat"
    scores = {"model": "replay:/root/.cache/x/a.jsonl", "benchmark": "tencentllmeval", "config": "en"}
    assert run_name(scores) == "replay:a · tencentllmeval:en"


@pytest.fixture(scope="module")
def judged(shared_data, tmp_path_factory):
    """A model against the reference answers on 40 questions; the judge favours it on 3 of every 4."""
    rows = questions()
    return judged_run(tmp_path_factory.mktemp("judged") / "strong", rows, lambda i: "B" if i % 4 == 0 else "A"), rows


def test_a_judged_pairwise_run_gives_the_judge_only_comparisons_and_the_calibrated_figure(judged, tmp_path):
    (folder, model), rows = judged
    pairs = judged_pairs([folder, tmp_path])  # a folder without scores.json gives none
    verdicts = run_verdicts(folder)
    assert len(pairs) == len(rows) == len(verdicts) and {(p.model_a, p.model_b) for p in pairs} == {(model, REFERENCE)}
    assert {p.item_id: p.outcome for p in pairs} == verdicts and sum(o == "A" for o in verdicts.values()) == 30
    store = VoteStore(tmp_path / "v.sqlite")
    vote_on_run(store, folder, model, MIN_CALIBRATION_VOTES + 2, 0.4, random.Random(0))
    board = compute_board(store.votes(), [folder], bootstrap=10)
    assert len(board.arena) == 2 and all(CELL.match(row[9]) for row in board.arena)  # calibrated, both sides
    assert board.runs[0][0] == "replay:strong · tencentllmeval:en" and "/" not in board.runs[0][0]
    assert {plain_name(row[2]) for row in board.arena} == {
        "replay:strong · tencentllmeval:en",
        f"{REFERENCE} · tencentllmeval:en",
    }


def test_a_run_whose_scores_fail_the_checks_is_listed_but_not_judged(judged, tmp_path):
    (folder, _), _ = judged
    damaged = tmp_path / "damaged"
    shutil.copytree(folder, damaged)
    scores = json.loads((damaged / "scores.json").read_text(encoding="utf-8"))
    (damaged / "scores.json").write_text(json.dumps({**scores, "judge_samples": 0}), encoding="utf-8")
    assert judged_pairs([damaged]) == []  # judge_samples must be at least 1: refused as `calibrate` refuses it
    board = compute_board([], [folder, damaged], bootstrap=10)
    assert [row[0] for row in board.runs] == ["replay:strong · tencentllmeval:en"] * 2


def test_the_annotate_tab_is_hidden_without_checklists(judged, small_pool, tmp_path):
    (folder, _), _ = judged

    def annotate_tab(pool: ResponsePool):
        app = build_app(Arena(pool, VoteStore(tmp_path / f"{len(pool.models())}.sqlite")))
        (tab,) = [b for b in app.blocks.values() if b.get_block_name() == "tabitem" and b.label == "Annotate"]
        return tab

    assert annotate_tab(ResponsePool.load([folder])).visible is False  # a pairwise run: no checklists
    assert annotate_tab(small_pool).visible is True


def test_after_one_vote_the_ratings_have_no_interval_and_no_rank():
    """The board showed Bradley-Terry 2549.7 and -549.7, each with a point "95% interval", after one vote."""
    board = compute_board(votes_between({("m1", "m2"): 1.0}, 1), bootstrap=10)
    for _, rank, elo, bt, battles in board.human:
        assert rank == "-" and battles == 1
        assert re.fullmatch(r"\d+ \[no interval: 1 battle, fewer than 20: not ranked\]", elo), elo
        assert bt == "-"  # no finite Bradley-Terry rating from one vote
    assert "2549" not in str(board.human)


def test_elo_and_bradley_terry_carry_intervals_once_a_model_has_enough_battles():
    board = compute_board(votes_between({("m1", "m2"): 0.7, ("m2", "m3"): 0.6}, 40), bootstrap=50)
    ranks = [row[1] for row in board.human]
    assert ranks == [1, 2, 3]
    for _, _, elo, bt, battles in board.human:
        assert battles >= 40
        for cell in (elo, bt):
            point, low, high = (float(x) for x in re.fullmatch(r"(\d+) \[(\d+), (\d+)\]", cell).groups())
            assert low <= point <= high


def test_human_human_agreement_carries_its_interval():
    votes = votes_between({("m1", "m2"): 0.6}, 30)
    second = [replace(v, annotator="bob", outcome=v.outcome if n % 5 else "B") for n, v in enumerate(votes)]
    summary = compute_board(votes + second, bootstrap=10).summary
    found = re.search(r"human-human: (\d+\.\d)% \[(\d+\.\d), (\d+\.\d)\]", summary)
    assert found, summary
    point, low, high = (float(x) for x in found.groups())
    assert low < point < high <= 100


def near_the_top() -> tuple[list[Vote], list[JudgedPair]]:
    """m1 wins 29 of 30 votes (one tie); the judge gives it only two in three of them, and all of its 200 judge-only
    comparisons: PPI++'s interval reached 1.032."""
    votes = [
        Vote("ann", "s", f"hellobench:all/q{n}", "m1", "m2", "sorted", "A" if n else "equally_good", "AB"[n % 3 == 0])
        for n in range(MIN_CALIBRATION_VOTES)
    ]
    return votes, [JudgedPair(f"hellobench:all/r{n}", "m1", "m2", "A") for n in range(200)]


def test_the_calibrated_win_rate_stays_on_its_scale():
    """The Space showed calibrated win rates [0.972, 1.020] and [-0.020, 0.028]."""
    rows = {r.model: r for r in standings(*near_the_top(), rounds=100, bootstrap=10)}
    for model, end in (("m1", 1.0), ("m2", 0.0)):
        found = rows[model].calibrated
        assert 0.0 <= found.low <= found.estimate <= found.high <= 1.0 and end in (found.low, found.high)


def test_a_model_that_won_every_vote_has_wilsons_one_sided_bound_and_elo_no_interval():
    """20 of 20 votes won had no interval; the Elo column showed `1044 [1044, 1044]` where Bradley-Terry showed none."""
    shown = {1: ("m1", "m2", "sorted", "A"), 0: ("m2", "m1", "sorted", "B")}  # m1 won, shown as A or as B
    votes = [Vote("ann", "s", f"hellobench:all/q{n}", *shown[n % 2]) for n in range(MIN_VOTES)]
    rows = {r.model: r for r in standings(votes, rounds=100, bootstrap=10)}
    won, lost = rows["m1"].win_rate, rows["m2"].win_rate
    assert (won.point, won.high) == (1.0, 1.0) and won.low == pytest.approx(20 / (20 + 1.959964**2))
    assert (lost.low, lost.point) == (0.0, 0.0) and lost.high == pytest.approx(1 - won.low)
    assert arena_cells([rows["m1"]])[0][4] == "100.0% [83.9, 100.0]"
    board = compute_board(votes * 2, bootstrap=20)  # 40 battles: enough to be rated, and still a sweep
    elo = {row[0]: row[2] for row in board.human}
    assert all(cell.startswith(("1", "9")) and "[no interval: some models never lost" in cell for cell in elo.values())
