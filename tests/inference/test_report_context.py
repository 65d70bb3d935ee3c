"""The figures beside a live score: published models from their released verdicts, the judge's stored agreement,
scales, absent plots, stage times and the closing summary."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest

from longform_eval.inference.cli import main
from longform_eval.inference.report.sections import context as report_context
from longform_eval.inference.report.sections.plots import Absent, bar_plot, line_plot, scatter_plot
from longform_eval.metric.helloeval.parser import parse_checklist_verdict

from .conftest import chat_run, released, write_replay

REPO = Path(__file__).resolve().parents[2]
PUBLISHED = {
    "gpt4o_0806": (48.55, [54.82, 29.71, 42.88, 67.49, 47.87]),
    "llama31_8b": (15.01, [42.52, 18.44, -5.26, -5.61, 24.99]),
    "qwen2_7b": (13.68, [46.05, 7.37, -6.48, 5.12, 16.33]),
}


@pytest.fixture
def no_agreement_file(tmp_path, monkeypatch):
    monkeypatch.setattr(report_context, "agreement_file", lambda: tmp_path / "absent" / "agreement.json")


def with_interval(scores: dict) -> str:
    """The overall score with its 95% interval, as report.md prints it."""
    interval = scores["intervals"]["overall"]
    if interval is None:  # one prompt per task: no interval (issue 31)
        return f"{scores['overall']:.2f} [no interval]"
    return f"{scores['overall']:.2f} [{interval['low']:.2f}, {interval['high']:.2f}]"


def replay_pair(shared_data: Path, model: str, folder: Path) -> tuple[Path, Path]:
    """A model's released responses and released verdicts as replay files."""
    generations = write_replay(
        folder / f"{model}_gen.jsonl", ((r["id"], r["response"]) for r in released(shared_data, "generations", model))
    )
    verdicts = write_replay(
        folder / f"{model}_judge.jsonl",
        ((r["id"], json.dumps(r["checklist_wise_evaluation"])) for r in released(shared_data, "judgements", model)),
    )
    return generations, verdicts


def demo_subset(model: Path, judge: Path, out: Path) -> list[str]:
    """One prompt per HelloBench task, as the main job takes them."""
    return ["run", "--benchmark", "hellobench:all", "--per-group", "1", "--shortest"] + [
        "--model",
        f"replay:{model}",
        "--judge",
        f"replay:{judge}",
        "--out",
        str(out),
    ]


@pytest.mark.parametrize("model", sorted(PUBLISHED))
def test_published_figures_are_recomputed_from_the_released_verdicts(shared_data, model):
    source = shared_data / "hellobench"
    prompts = report_context.main_prompts(source)
    verdicts = report_context.released_verdicts(source, model)
    everything = report_context.published_scores(verdicts, prompts, set(prompts))
    overall, per_task = PUBLISHED[model]
    assert everything["overall"] == pytest.approx(overall, abs=0.01)
    assert [t["score"] for t in everything["tasks"].values()] == pytest.approx(per_task, abs=0.01)
    assert (everything["n_scored"], everything["n_unscored"]) == (647, 0)
    chat = {row_id for row_id in prompts if row_id.startswith("chat_")}
    same = report_context.published_scores(verdicts, prompts, chat)  # a subset that is one whole task
    assert same["overall"] == pytest.approx(per_task[2], abs=0.01) and same["n_scored"] == 147


def test_a_replay_run_shows_the_scale_and_the_published_rows_of_the_other_judge(
    shared_data, gpt4o_replays, tmp_path, capsys, no_agreement_file
):
    generations, verdicts = gpt4o_replays
    out = tmp_path / "gpt4o"
    assert main(demo_subset(generations, verdicts, out)) == 0
    printed = capsys.readouterr().out
    scores = json.loads((out / "scores.json").read_text())
    report = (out / "report.md").read_text()
    assert f"Headline: **{with_interval(scores)}** (scale -300..100;" in report
    table = {tuple(cell.strip() for cell in line.split("|")[1:4]): line for line in report.splitlines()}
    judge = "GPT-4o (released verdicts)"
    assert "| 48.55 [" in table[("gpt4o_0806 (published)", judge, "all 647: whole benchmark")]
    assert "| 15.01 [" in table[("llama31_8b (published)", judge, "all 647: whole benchmark")]
    assert "] | -300..100 |" in table[("qwen2_7b (published)", judge, "all 647: whole benchmark")]
    # GPT-4o's verdicts judged this run, so its published row over the same prompts is the run's own figure
    same = table[("gpt4o_0806 (published)", judge, "same 5 as this run")]
    assert f"| {with_interval(scores)} | -300..100 |" in same
    assert f"Not this run's judge (`replay:{verdicts}`)" in report
    # the stored agreement is the embedded judge's: not said in the report of a run another judge judged (issue 45)
    assert "Agreement of" not in report
    # the terminal's leaderboard ranks published rows only beside a run judged by the paper's judge, and says the
    # embedded judge's agreement only beside a run it judged (test_terminal_width.py): neither beside a replay
    assert "-300..100" in printed and "(published)" not in printed and "Agreement of" not in printed

    llama_generations, llama_verdicts = replay_pair(shared_data, "llama31_8b", tmp_path)
    assert main(demo_subset(llama_generations, llama_verdicts, tmp_path / "llama")) == 0
    llama = json.loads((tmp_path / "llama/scores.json").read_text())
    assert f"| {with_interval(llama)} | -300..100 |" in table[("llama31_8b (published)", judge, "same 5 as this run")]


def test_a_stored_agreement_is_shown_with_its_judge_and_figures(shared_data, tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("judge_agreement", REPO / "bench/judge_agreement.py")
    bench = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, bench)  # its dataclasses look their module up
    spec.loader.exec_module(bench)
    _, llama_verdicts = replay_pair(shared_data, "llama31_8b", tmp_path)  # llama's verdicts as a stand-in judge
    stored = tmp_path / "agreement.json"
    assert bench.main(["--judge", f"replay:{llama_verdicts}", "--limit", "3", "--store", str(stored)]) == 0
    figures = json.loads(stored.read_text())
    sizes = report_context.main_prompts(shared_data / "hellobench")
    by_id = {r["id"]: r["checklist_wise_evaluation"] for r in released(shared_data, "judgements", "gpt4o_0806")}
    judged = {r["id"]: r["checklist_wise_evaluation"] for r in released(shared_data, "judgements", "llama31_8b")}
    first = [r["id"] for r in released(shared_data, "generations", "gpt4o_0806")][:3]
    items = [
        (a, b)
        for row_id in first
        for a, b in zip(
            parse_checklist_verdict(judged[row_id], sizes[row_id][1]),
            parse_checklist_verdict(by_id[row_id], sizes[row_id][1]),
            strict=True,
        )
    ]
    assert (figures["n_rows"], figures["n_scored"], figures["n_items"]) == (3, 3, len(items))
    assert figures["item_exact_agreement"] == pytest.approx(sum(a == b for a, b in items) / len(items))
    assert figures["item_mean_abs_diff"] == pytest.approx(sum(abs(a - b) for a, b in items) / len(items))
    assert figures["judge"] == f"replay:{llama_verdicts}" and "--limit 3" in figures["command"]
    monkeypatch.setattr(report_context, "agreement_file", lambda: stored)
    line = report_context.agreement_line()
    assert f"`replay:{llama_verdicts}`" in line and "first 3 released gpt4o_0806 rows" in line
    assert f"{100 * figures['item_exact_agreement']:.1f}% of checklist items exactly equal" in line


def test_without_released_data_the_context_says_so_in_one_line(gpt4o_replays, tmp_path, monkeypatch):
    generations, verdicts = gpt4o_replays
    out = tmp_path / "run"
    assert main(chat_run(2, f"replay:{generations}", f"replay:{verdicts}", str(out))) == 0
    monkeypatch.setenv("LONGFORM_EVAL_SOURCE", str(tmp_path / "no-source"))  # a machine without the upstream files
    from longform_eval.inference.report.markdown import write_report

    report = write_report(out).read_text()
    assert "Published models: not shown (no released HelloBench verdicts under" in report
    assert "(published)" not in report


def test_a_plot_with_too_few_points_is_a_sentence_not_an_empty_frame(gpt4o_replays, tmp_path):
    generations, verdicts = gpt4o_replays
    out = tmp_path / "one"
    assert main(chat_run(1, f"replay:{generations}", f"replay:{verdicts}", str(out))) == 0
    report = (out / "report.md").read_text()
    assert "`score_vs_words.png` is not drawn: it needs at least 2 scored rows; this run has 1." in report
    assert not (out / "score_vs_words.png").exists() and "![score_vs_words]" not in report
    assert (out / "score_per_task.png").stat().st_size > 1000 and "![score_per_task](score_per_task.png)" in report

    stale = tmp_path / "bars.png"
    stale.write_bytes(b"an older drawing")
    assert bar_plot(stale, {}, "y", "t", unit="tasks with a score") == Absent(stale, 1, 0, "tasks with a score")
    assert not stale.exists()
    assert isinstance(scatter_plot(tmp_path / "s.png", [], [], "x", "y", "t"), Absent)
    absent = line_plot(tmp_path / "l.png", [0.1, 0.2], {"a": [None, 50.0], "b": [None, None]}, "x", "y", "t")
    assert isinstance(absent, Absent) and absent.have == 1
    assert line_plot(tmp_path / "l.png", [0.1, 0.2], {"a": [40.0, 50.0]}, "x", "y", "t") == tmp_path / "l.png"


def test_the_summary_lists_counts_reasons_stage_times_and_the_report(gpt4o_replays, tmp_path, capsys):
    generations, _ = gpt4o_replays
    ids = [json.loads(line)["key"] for line in generations.read_text().splitlines() if '"chat_' in line][:3]
    verdict = json.dumps([{"checklist_id": i, "reason": "ok", "evaluation_score": 1} for i in range(6)])
    replies = [verdict, "I refuse to grade this.", verdict[:-30]]
    judge = write_replay(tmp_path / "judge.jsonl", zip(ids, replies, strict=True))
    out = tmp_path / "run"
    args = chat_run(3, f"replay:{generations}", f"replay:{judge}", str(out))
    assert main(args) == 0
    summary = capsys.readouterr().out.split("\nsummary\n")[1]
    assert "  score 100.00 [no interval] (scale -300..100; " in summary and "  scored 1, unscored 2" in summary
    assert re.search(r"  unscored: 2 x \S", summary)  # both replies fail the same way: no list to read
    assert re.search(r"  wall time: generate \d+\.\d s, judge \d+\.\d s, score \d+\.\d s, report \d+\.\d s", summary)
    assert f" report: {out / 'report.md'} " in f" {' '.join(summary.split())} "  # a long path: on a line of its own
    timings = json.loads((out / "timings.json").read_text())["invocations"]
    assert len(timings) == 1 and set(timings[0]["seconds"]) == {"generate", "judge", "score", "report"}
    assert (timings[0]["model_calls"], timings[0]["judge_calls"]) == (3, 7)  # 2 bad replies x 3 attempts
    assert "## Wall time per stage" in (out / "report.md").read_text()

    assert main(args) == 0  # finished: nothing to redo, one more invocation recorded
    assert "model calls 0, judge calls 0" in capsys.readouterr().err
    timings = json.loads((out / "timings.json").read_text())["invocations"]
    assert len(timings) == 2 and (timings[1]["model_calls"], timings[1]["judge_calls"]) == (0, 0)
    assert "all 2 invocations on this folder" in (out / "report.md").read_text()


def test_a_plot_is_drawn_again_only_when_what_it_shows_changed(tmp_path, monkeypatch):
    from longform_eval.inference.report.sections import plots

    path = tmp_path / "bars.png"
    assert bar_plot(path, {"a": 1.0, "b": 2.0}, "y", "t") == path and path.stat().st_size > 1000
    drawn = path.read_bytes()
    monkeypatch.setattr(plots, "subplots", lambda *a, **k: pytest.fail("drawn again from the same inputs"))
    assert bar_plot(path, {"a": 1.0, "b": 2.0}, "y", "t") == path and path.read_bytes() == drawn
    monkeypatch.undo()
    assert bar_plot(path, {"a": 1.0, "b": 2.5}, "y", "t") == path and path.read_bytes() != drawn  # another figure
    path.unlink()
    assert bar_plot(path, {"a": 1.0, "b": 2.5}, "y", "t") == path and path.is_file()  # a deleted drawing: drawn


def test_the_agreement_paragraph_is_said_only_beside_the_judge_it_measured():
    """Issue 45: report.md of a run judged by GPT-4o kept the paragraph on `local:default`'s agreement."""
    context = report_context.RunContext([], ["a note"], "gpt-4o", "Agreement of the embedded judge: 19%.")
    assert "Agreement of the embedded judge: 19%." in report_context.context_lines(context, "local:default")
    assert "Agreement of" not in "\n".join(report_context.context_lines(context, "openai:gpt-4o"))
    assert "a note" in report_context.context_lines(context, "openai:gpt-4o")
