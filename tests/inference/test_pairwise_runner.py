"""Pairwise benchmarks on the runner: TencentLLMEval questions, recorded models and a recorded judge, both orders;
the multi-run leaderboard; and `judge-agreement` on PandaLM's human labels."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest

from longform_eval.inference.benchmarks import create_benchmark
from longform_eval.inference.benchmarks.pairwise.calls import pair_calls
from longform_eval.inference.benchmarks.rows import benchmark_rows
from longform_eval.inference.cli import main
from longform_eval.inference.runner import Run
from longform_eval.inference.runner.answers import read_answers
from longform_eval.inference.runner.judge_agreement import pandalm_folder, read_items

from .conftest import assert_intervals_hold, write_replay

SELECT = ("--per-group", "4", "--limit", "20")  # 20 questions across the areas
# Per row i of run A (model A against run B), the judge's reply in each order: ab shows A's answer first.
PATTERN = [
    ("Reasons.\nVerdict: A", '"B"'),  # A better in both orders: a win
    ('"A"', "Verdict: B"),  # a win
    ("Verdict: B", "Verdict: A"),  # a loss
    ("Verdict: A", "Verdict: A"),  # the orders disagree: a tie (equally good), a flip
    ("Verdict: equally bad", '"equally bad"'),  # equally bad
]


@pytest.fixture(scope="module")
def questions() -> list[dict]:
    benchmark = create_benchmark("tencentllmeval", "en")
    rows = benchmark_rows(benchmark, None)
    from longform_eval.inference.benchmarks import Selection

    return Selection(limit=20, per_group=4).apply(rows, benchmark)


def models(folder: Path, rows: list[dict]) -> tuple[Path, Path]:
    a = [(r["id"], f"Answer {i}.\n\n" + "A detailed point. " * (5 + 3 * i)) for i, r in enumerate(rows)]
    b = [(r["id"], f"## Answer {i}\n- **short**\n- list\n" + "word " * (40 - i)) for i, r in enumerate(rows)]
    return write_replay(folder / "a.jsonl", a), write_replay(folder / "b.jsonl", b)


def run_args(model: Path, baseline: str, out: Path, *extra: str, select: tuple[str, ...] = SELECT) -> list[str]:
    benchmark = ["--benchmark", "tencentllmeval:en", *select]
    return ["run", *benchmark, "--model", f"replay:{model}", "--baseline", baseline, *extra, "--out", str(out)]


def judge_replies(folders: list[Path], reply) -> list[tuple[str, str]]:
    """Replay lines for every judge call of the runs, `reply(row index, part)` giving the text."""
    pairs = []
    for folder in folders:
        run = Run.open(folder, read_only=True)
        order = [row["id"] for row in run.rows]
        for sample_id, (text, _) in run.responses().items():
            for call in run.benchmark.judge_calls(run.by_id[sample_id], text):
                pairs.append((call.key, reply(order.index(sample_id), call.meta["part"], folder)))
    return pairs


def pattern_reply(index: int, part: str, folder: Path) -> str:
    if folder.name == "B":  # model B against the reference answers: B wins every other question
        return "Verdict: A" if (index % 2 == 0) == (part == "ab") else "Verdict: B"
    first, second = PATTERN[index % len(PATTERN)]
    return first if part == "ab" else second


def test_two_recorded_models_on_20_questions_judged_in_both_orders(questions, tmp_path, capsys):
    model_a, model_b = models(tmp_path, questions)
    runs = tmp_path / "runs"
    generate = ["generate", "--benchmark", "tencentllmeval:en", *SELECT]
    assert main([*generate, "--model", f"replay:{model_b}", "--out", str(runs / "B")]) == 0
    assert (
        main([*generate, "--model", f"replay:{model_a}", "--baseline", str(runs / "B"), "--out", str(runs / "A")]) == 0
    )
    judge = write_replay(tmp_path / "judge.jsonl", judge_replies([runs / "A", runs / "B"], pattern_reply))
    assert len(judge.read_text().splitlines()) == 80  # 20 questions x 2 orders x 2 runs
    assert main(run_args(model_b, "reference", runs / "B", "--judge", f"replay:{judge}")) == 0
    assert main(run_args(model_a, str(runs / "B"), runs / "A", "--judge", f"replay:{judge}")) == 0
    assert "model calls 0, judge calls 40" in capsys.readouterr().err

    scores = json.loads((runs / "A/scores.json").read_text())
    assert scores["baseline"] == f"replay:{model_b}" and scores["mode"] == "pairwise"
    assert (scores["n_scored"], scores["n_unscored"], scores["n_no_baseline"]) == (20, 0, 0)
    overall = scores["overall"]
    assert (overall["wins"], overall["losses"], overall["equally_good"], overall["equally_bad"]) == (8, 4, 4, 4)
    assert scores["win_rate"] == pytest.approx((8 + 0.5 * 8) / 20) and overall["tencent_win_rate"] == pytest.approx(0.5)
    assert scores["gsb"] == pytest.approx(0.2) and scores["flip_rate"] == pytest.approx(0.2)
    assert sum(g["n"] for g in scores["groups"]["area"].values()) == 20 and len(scores["groups"]["area"]) > 3
    for group in scores["groups"]["area"].values():  # four questions each
        assert_intervals_hold(scores | {"intervals": group["intervals"]}, ("win_rate", "gsb"), value_of=group.get)
        assert group["intervals"]["win_rate"]["n"] == 4
    assert scores["elo"]["model"] > 1000 > scores["elo"]["baseline"]
    bt = scores["bradley_terry"]["model"]
    assert bt["lower"] <= bt["rating"] <= bt["upper"] and bt["rating"] > scores["bradley_terry"]["baseline"]["rating"]
    assert 0 <= scores["length_controlled_win_rate"] <= 1 and "style_controlled_bt" in scores
    assert_intervals_hold(scores, ("win_rate", "gsb", "length_controlled_win_rate"))
    assert scores["intervals"]["win_rate"]["n"] == 20 and "lc_standard_error" in scores["interval_method"]

    report = (runs / "A/report.md").read_text()
    for figure in ("**Win rate against", "length-controlled win rate", "GSB 0.20", "flip rate 20.0%", "Elo"):
        assert figure in report
    assert "Bradley-Terry [95% CI]" in report and "| area |" in report and "| task |" in report
    assert "win rate [95% CI]" in report
    assert "Group intervals: 95% t interval over each group's" in report

    assert main(["report", str(runs / "A"), str(runs / "B")]) == 0
    board = (runs / "pairwise_leaderboard.md").read_text()
    assert all(name in board for name in (f"replay:{model_a}", f"replay:{model_b}", "reference answers"))
    assert "LC win rate" in board and "Bradley-Terry [95% CI]" in board
    assert (runs / "pairwise_bt_tencentllmeval-en.png").stat().st_size > 1000
    assert (runs / "pairwise_win_rates_tencentllmeval-en.png").stat().st_size > 1000

    finished = Run.open(runs / "A", read_only=True)
    assert finished.pending_generations() == [] and finished.pending_judge_calls() == []  # a rerun makes no call


def judged_run(tmp_path: Path, per_group: int, limit: int) -> dict:
    """A model against the reference answers on `per_group` questions of each area, each question's outcome in
    turn a win, a loss and a tie (equally bad); its scores.json."""
    from longform_eval.inference.benchmarks import Selection

    benchmark = create_benchmark("tencentllmeval", "en")
    rows = Selection(limit=limit, per_group=per_group).apply(benchmark_rows(benchmark, None), benchmark)
    tmp_path.mkdir()
    model, _ = models(tmp_path, rows)
    out = tmp_path / f"run_{per_group}"
    args = run_args(model, "reference", out, select=("--per-group", str(per_group), "--limit", str(limit)))
    assert main(["generate", *args[1:]]) == 0
    orders = [("Verdict: A", '"B"'), ("Verdict: B", "Verdict: A"), ("Verdict: equally bad", '"equally bad"')]
    replies = judge_replies([out], lambda index, part, folder: orders[index % 3][part != "ab"])
    assert main([*args, "--judge", f"replay:{write_replay(tmp_path / 'judge.jsonl', replies)}"]) == 0
    return json.loads((out / "scores.json").read_text()) | {"report": (out / "report.md").read_text()}


@pytest.mark.slow
def test_group_win_rate_intervals_narrow_with_more_questions(tmp_path):
    small = judged_run(tmp_path / "small", 3, 12)  # 3 questions in each of 4 areas
    large = judged_run(tmp_path / "large", 12, 48)  # 12 in Safety and in NLP Basics
    for area in ("Safety", "NLP Basics"):
        before, after = small["groups"]["area"][area], large["groups"]["area"][area]
        assert (before["n"], after["n"]) == (3, 12)
        for group in (before, after):
            interval = group["intervals"]["win_rate"]
            assert interval["low"] <= group["win_rate"] <= interval["high"] and interval["high"] > interval["low"]
        widths = [g["intervals"]["win_rate"]["high"] - g["intervals"]["win_rate"]["low"] for g in (before, after)]
        assert widths[1] < widths[0]
    single = large["groups"]["task"]["Text Generation / Perform tasks"]  # one question: no interval, not a zero width
    assert single["n"] == 1 and single["intervals"] == {"win_rate": None, "gsb": None}
    assert "| Text Generation / Perform tasks | 1 | 0 | 50.0% [no interval] |" in large["report"]


def test_single_score_mode_maps_two_scores_to_one_outcome(questions, tmp_path):
    model_a, _ = models(tmp_path, questions)
    out = tmp_path / "single"
    scores_of = [(8, 4), (6, 7), (3, 4), (9, 9)]  # A better, equally good, equally bad, equally good

    def reply(index: int, part: str, folder: Path) -> str:
        model, baseline = scores_of[index % 4]
        return (
            str(model if part == "model" else baseline)
            if index % 2
            else f"Reasons.\nScore: {model if part == 'model' else baseline}"
        )

    args = run_args(
        model_a, "reference", out, "--benchmark-arg", "mode=single", select=("--per-group", "4", "--limit", "8")
    )
    assert main(["generate", *args[1:]]) == 0
    judge = write_replay(tmp_path / "judge.jsonl", judge_replies([out], reply))
    assert main([*args, "--judge", f"replay:{judge}"]) == 0
    overall = json.loads((out / "scores.json").read_text())["overall"]
    assert (overall["wins"], overall["losses"], overall["equally_good"], overall["equally_bad"]) == (2, 0, 4, 2)
    assert "flip_rate" not in overall


def test_a_changed_baseline_makes_new_judge_calls(questions):
    benchmark = create_benchmark("tencentllmeval", "en")
    row = questions[0]
    keys = {c.key for c in benchmark.judge_calls(row, "an answer")}
    changed = {c.key for c in benchmark.judge_calls({**row, "reference_answer": "another"}, "an answer")}
    assert len(keys) == 2 and not keys & changed and all(k.startswith(f"{row['id']}#") for k in keys | changed)
    assert benchmark.judge_calls({**row, "reference_answer": "NA"}, "an answer") == []  # no reference: no call


def test_area_and_task_filters_use_the_normalised_tree_labels():
    rows = benchmark_rows(create_benchmark("tencentllmeval", "en", {"area": "professional field"}), None)
    assert len(rows) == 340 + 70 + 2 and {r["area"] for r in rows} == {"Professional Field"}
    tasks = benchmark_rows(create_benchmark("tencentllmeval", "en", {"task": "logical reasoning"}), None)
    assert tasks and len({r["task"] for r in tasks}) == 1
    with pytest.raises(ValueError, match="no row has area 'Plugins'; the areas are: Dialogue"):
        benchmark_rows(create_benchmark("tencentllmeval", "en", {"area": "Plugins"}), None)


def test_baseline_flag_errors_are_clear(tmp_path, capsys):
    out = str(tmp_path / "x")
    assert main(["run", "--benchmark", "hellobench:chat", "--baseline", "reference", "--out", out]) == 2
    assert "--baseline: hellobench compares with no baseline; pairwise benchmarks do" in capsys.readouterr().err
    args = ["run", "--benchmark", "tencentllmeval:en", "--baseline", "reference", "--out", out]
    assert main([*args, "--benchmark-arg", f"baseline={tmp_path}"]) == 2
    assert "disagree" in capsys.readouterr().err
    assert main(["run", "--benchmark", "tencentllmeval:en", "--baseline", str(tmp_path), "--out", out]) == 2
    assert "has no config.yaml" in capsys.readouterr().err
    replay = write_replay(tmp_path / "answers.jsonl", [])
    assert main(["run", "--benchmark", "hellobench-pairwise:chat", "--model", f"replay:{replay}", "--out", out]) == 2
    assert "--baseline: hellobench-pairwise judges the model against a baseline: give one" in capsys.readouterr().err
    assert main(["run", "--benchmark", "hellobench-pairwise:chat", "--baseline", "reference", "--out", out]) == 2
    assert "HelloBench has no reference answers" in capsys.readouterr().err
    assert not Path(out).exists()


def test_hellobench_pairwise_against_released_gpt4o_responses(shared_data, gpt4o_replays, tmp_path):
    generations, _ = gpt4o_replays
    baseline = tmp_path / "gpt4o"
    released = shared_data / "hellobench/generations/main_exp/gpt4o_0806"
    assert main(["import-generations", str(released), "--benchmark", "hellobench:chat", "--out", str(baseline)]) == 0
    out = tmp_path / "pairwise"
    args = ["run", "--benchmark", "hellobench-pairwise:chat", "--limit", "3", "--baseline", str(baseline)]
    args += ["--model", f"replay:{generations}", "--out", str(out)]
    assert main(["generate", *args[1:]]) == 0
    judge = write_replay(tmp_path / "judge.jsonl", judge_replies([out], lambda i, part, f: '"equally good"'))
    assert main([*args, "--judge", f"replay:{judge}"]) == 0
    scores = json.loads((out / "scores.json").read_text())
    assert scores["baseline"] == "imported:gpt4o_0806" and scores["n_scored"] == 3 and scores["win_rate"] == 0.5
    assert list(scores["groups"]) == ["task", "subcategory"] and scores["flip_rate"] == 0.0
    other = create_benchmark("tencentllmeval", "en", {"baseline": str(baseline)})
    other.read_run = functools.partial(read_answers, Run.open)  # as the runner sets it
    with pytest.raises(
        ValueError, match="a hellobench:chat run; answers to the same prompts come from a tencentllmeval:en"
    ):
        other.judge_calls({"id": "x", "question": "q"}, "an answer")


def released_judge_replay(shared_data: Path, tmp_path: Path) -> Path:
    """Judge replies that give GPT-3.5's released verdict on each of the first 60 PandaLM items, in both orders."""
    items = read_items(pandalm_folder(None))[:60]
    released = {
        str(r["idx"]): r["gpt_result"]
        for r in json.loads((shared_data / "pandalm/gpt-3.5-turbo-testset-v1.json").read_text())
    }
    first = {"1": "Verdict: A", "2": "Verdict: B", "0": '"equally good"', "Tie": "Verdict: equally good"}
    second = {"1": '"B"', "2": "Verdict: A", "0": "Verdict: equally good", "Tie": "Verdict: equally good"}
    lines = []
    for item in items:
        ab, ba = pair_calls(item.pair, "pairwise")
        verdict = released[item.pair.id]
        lines += [(ab.key, first.get(verdict, "no verdict")), (ba.key, second.get(verdict, "no verdict"))]
    return write_replay(tmp_path / "judge.jsonl", lines)


def agreement_args(judge: Path, limit: int, out: Path) -> list[str]:
    command = ["judge-agreement", "--judge", f"replay:{judge}", "--limit", str(limit)]
    return [*command, "--judge-attempts", "1", "--out", str(out)]


def test_judge_agreement_reproduces_a_released_judge_from_its_verdicts(shared_data, tmp_path, capsys):
    judge = released_judge_replay(shared_data, tmp_path)
    out = tmp_path / "agreement"
    args = agreement_args(judge, 60, out)
    assert main(args) == 0
    result = json.loads((out / "agreement.json").read_text())
    ours, gpt = result["agreement"], result["released"]["GPT-3.5 (released)"]
    assert ours["agreement"] == gpt["agreement"] and ours["cohen_kappa"] == pytest.approx(gpt["cohen_kappa"])
    assert (ours["n"], ours["n_unscored"]) == (gpt["n"], gpt["n_unscored"])
    assert sum(map(sum, ours["confusion"])) == ours["n"] and result["flip_rate"] == 0.0
    assert result["orders"]["response 1 shown first"]["agreement"] == ours["agreement"]
    assert "| human \\ judge | A | B | tie |" in (out / "agreement.md").read_text()
    for figures in (ours, gpt, result["orders"]["response 2 shown first"]):
        for name in ("agreement", "cohen_kappa"):
            interval = figures["intervals"][name]
            assert interval["low"] <= figures[name] <= interval["high"] < 1 and interval["n"] == ours["n"]
    # no item flips: 0 of n is still uncertain (Wilson's interval, in [0, 1]); consistent verdicts pick each position
    # once: no spread, so no interval (never a zero width)
    flips = result["intervals"]["flip_rate"]
    assert flips["low"] == 0.0 < flips["high"] < 0.1 and result["flip_rate"] == 0.0
    assert result["intervals"]["first_position_preference"] is None and result["first_position_preference"] == 0.5
    kappa = ours["intervals"]["cohen_kappa"]
    row = f"| {ours['agreement']:.3f} [{ours['intervals']['agreement']['low']:.3f}, "
    assert row in (out / "agreement.md").read_text()
    assert (
        f"{ours['cohen_kappa']:.3f} [{kappa['low']:.3f}, {kappa['high']:.3f}] |" in (out / "agreement.md").read_text()
    )
    capsys.readouterr()
    assert main(args) == 0  # every call is recorded: nothing is judged again
    assert "judge (" not in capsys.readouterr().err


def test_judge_agreement_intervals_narrow_with_more_items_and_need_two(shared_data, tmp_path, capsys):
    judge = released_judge_replay(shared_data, tmp_path)
    found = {}
    for limit in (1, 15, 60):
        assert main(agreement_args(judge, limit, tmp_path / f"agreement_{limit}")) == 0
        found[limit] = json.loads((tmp_path / f"agreement_{limit}/agreement.json").read_text())
    assert found[1]["agreement"]["n"] == 1 and found[1]["agreement"]["intervals"] == {
        "agreement": None,
        "cohen_kappa": None,
    }
    assert "[no interval]" in (tmp_path / "agreement_1/agreement.md").read_text()
    for name in ("agreement", "cohen_kappa"):
        small, large = (found[limit]["agreement"]["intervals"][name] for limit in (15, 60))
        assert small["high"] - small["low"] > large["high"] - large["low"] > 0
        assert small["low"] <= found[15]["agreement"][name] <= small["high"]


def test_judge_agreement_intervals_stay_on_their_scales_at_a_few_items(shared_data, tmp_path):
    """--limit 3 printed agreement 0.333 [-1.101, 1.768] and --limit 12 a kappa interval [-0.083, 1.226]."""
    judge = released_judge_replay(shared_data, tmp_path)
    for limit in (3, 12):
        assert main(agreement_args(judge, limit, tmp_path / f"agreement_{limit}")) == 0
        result = json.loads((tmp_path / f"agreement_{limit}/agreement.json").read_text())
        for figures in (result["agreement"], *result["released"].values()):
            agreement, kappa = figures["intervals"]["agreement"], figures["intervals"]["cohen_kappa"]
            assert 0 <= agreement["low"] <= figures["agreement"] <= agreement["high"] <= 1
            if kappa is None:
                assert figures["interval_notes"]["cohen_kappa"]
            else:
                assert -1 <= kappa["low"] <= figures["cohen_kappa"] <= kappa["high"] <= 1


def test_judge_agreement_with_every_call_failed_says_why_and_keeps_the_failures(tmp_path, capsys):
    judge = write_replay(tmp_path / "judge.jsonl", [("no such call", "Verdict: A")])
    out = tmp_path / "agreement"
    assert main(agreement_args(judge, 3, out)) == 1
    err = capsys.readouterr().err
    assert "every judge call failed (6 of 6): judge: no recorded completion" in err
    assert str(out / "failures.jsonl") in err
    failures = [json.loads(line) for line in (out / "failures.jsonl").read_text().splitlines()]
    assert len(failures) == 6 and {f["stage"] for f in failures} == {"judge"}
    assert all("no recorded completion" in f["error"] for f in failures)
