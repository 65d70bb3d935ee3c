"""Every figure a report prints carries its 95% interval: report.md, the closing summary, the leaderboard, the plots
and the published context; report.md says where the variance comes from; run-folder names never act as markup."""

from __future__ import annotations

import contextlib
import io
import math
import re
import time
from pathlib import Path

import pytest
from matplotlib.container import ErrorbarContainer
from rich.console import Console
from scores_documents import PAIRWISE_FIGURES, scores_with

from longform_eval.inference.benchmarks import create_benchmark
from longform_eval.inference.benchmarks.run_scores import VarianceParts
from longform_eval.inference.cli import main
from longform_eval.inference.report.markdown import COLUMNS, leaderboard, load_scores, run_cells, write_report
from longform_eval.inference.report.sections import plots as report_plots
from longform_eval.inference.report.sections import sections_for
from longform_eval.inference.report.uncertainty import variance_advice
from longform_eval.inference.runner.uncertainty import what_more_buys
from longform_eval.metric.uncertainty import VarianceSplit

from .conftest import chat_run
from .fault_server import FaultServer
from .test_judge_samples import noisy_run, noisy_verdict

PUBLISHED = {"gpt4o_0806": 48.55, "llama31_8b": 15.01, "qwen2_7b": 13.68}  # HelloBench Table 2, all 647 prompts
JUDGE = "GPT-4o (released verdicts)"
WITH_INTERVAL = re.compile(r"^(-?\d+\.\d+) \[(-?\d+\.\d+), (-?\d+\.\d+)\]$")


def with_interval(value: float, interval: dict) -> str:
    return f"{value:.2f} [{interval['low']:.2f}, {interval['high']:.2f}]"


def rendered(table) -> str:
    """A rich table as a terminal shows it, wide enough that no cell wraps."""
    console = Console(file=io.StringIO(), width=1000, record=True, color_system=None)
    console.print(table)
    return console.export_text()


def report_table(report: str) -> dict[tuple[str, ...], list[str]]:
    """The published-context rows of report.md by (model, judge, prompts): their cells."""
    rows = {}
    for line in report.splitlines():
        cells = [cell.strip() for cell in line.split("|")[1:-1]]
        if len(cells) == 6 and cells[1] == JUDGE:
            rows[tuple(cells[:3])] = cells
    return rows


@pytest.fixture(scope="module")
def chat_folder(gpt4o_replays, tmp_path_factory) -> tuple[Path, str]:
    """12 HelloBench chat prompts, GPT-4o's released answers judged by its released verdicts; and the summary."""
    generations, verdicts = gpt4o_replays
    out = tmp_path_factory.mktemp("intervals") / "chat"
    capture = io.StringIO()
    with contextlib.redirect_stdout(capture):
        assert main(chat_run(12, f"replay:{generations}", f"replay:{verdicts}", str(out))) == 0
    return out, capture.getvalue()


def test_report_md_prints_the_headline_with_its_interval_and_what_it_means(chat_folder):
    out, _ = chat_folder
    scores = load_scores(out).document()
    overall, chat = scores["intervals"]["overall"], scores["intervals"]["chat"]
    assert overall["low"] < scores["overall"] < overall["high"] and overall["n"] == 12
    report = (out / "report.md").read_text()
    assert f"Headline: **{with_interval(scores['overall'], overall)}** (scale -300..100;" in report
    assert f"**Overall HelloEval score: {with_interval(scores['overall'], overall)}**" in report
    method = f"In brackets: the 95% interval ({scores['interval_method']}). Another sample of prompts like these"
    assert method in report and "It does not cover the judge's bias" in report
    assert report.count("In brackets: the 95% interval") == 1  # the method is said once
    assert "| task | score | 95% CI | mean row score |" in report
    chat_score = scores["tasks"]["chat"]["score"]
    assert f"| chat | {chat_score:.2f} | [{chat['low']:.2f}, {chat['high']:.2f}] |" in report


def test_the_summary_and_the_leaderboard_print_the_interval(chat_folder):
    out, printed = chat_folder
    scores = load_scores(out).document()
    expected = with_interval(scores["overall"], scores["intervals"]["overall"])
    summary = printed.split("\nsummary\n")[1]
    assert f"  score {expected} (scale -300..100; chat " in summary
    benchmark = create_benchmark("hellobench", "chat")
    assert run_cells(out, load_scores(out), benchmark)[COLUMNS.index("score")] == expected
    shown = rendered(leaderboard([out]))
    assert f" {expected} " in shown and "its 95% interval" in shown


def test_without_judge_samples_the_variance_section_says_it_is_not_measured_and_how_to_measure_it(chat_folder):
    out, _ = chat_folder
    report = (out / "report.md").read_text()
    section = report.split("## Where the variance comes from\n\n")[1].split("\n\n")[0]
    assert section.startswith("Judge noise not measured: this run took one judge sample per call")
    assert "`--judge-samples 2`" in section


def test_published_rows_carry_intervals_that_hold_the_published_figures(chat_folder):
    out, _ = chat_folder
    scores = load_scores(out).document()
    rows = report_table((out / "report.md").read_text())
    for model, published in PUBLISHED.items():
        cells = rows[(f"{model} (published)", JUDGE, "all 647: whole benchmark")]
        value, low, high = map(float, WITH_INTERVAL.match(cells[3]).groups())
        assert value == pytest.approx(published, abs=0.005)
        assert low < published < high and 2 < high - low < 20, (model, cells[3])  # about 6 to 11 points wide
    # GPT-4o's verdicts judged this run: over the same prompts, the published row is the run's figure and interval
    same = rows[("gpt4o_0806 (published)", JUDGE, "same 12 as this run")]
    overall = scores["intervals"]["overall"]
    printed = map(float, WITH_INTERVAL.match(same[3]).groups())
    # Computed apart from the run's own (its row scores, its resampling call): equal up to rounding, so each printed
    # number is the run's to 2 decimals, give or take float noise at a rounding boundary.
    for shown, value in zip(printed, (scores["overall"], overall["low"], overall["high"]), strict=True):
        assert abs(shown - value) <= 0.005 + 1e-9, (same[3], value)
    # the leaderboard ranks them beside a run judged by the paper's judge only (test_terminal_width.py): a replay is not
    assert "(published)" not in rendered(leaderboard([out]))


def test_published_intervals_are_fast(chat_folder):
    out, _ = chat_folder
    scores = load_scores(out)
    benchmark = create_benchmark("hellobench", "chat")
    sections_for(benchmark).context(scores, out)  # the released verdicts are read once and cached
    started = time.perf_counter()
    context = sections_for(benchmark).context(scores, out)
    seconds = time.perf_counter() - started
    assert len(context.rows) == 6 and all(row.interval["n"] >= 12 for row in context.rows)
    assert seconds < 0.5 * len(context.rows), seconds  # about 0.05 s a row here


def test_the_task_bar_plot_gets_error_bars_from_the_intervals(gpt4o_replays, tmp_path, monkeypatch):
    generations, verdicts = gpt4o_replays
    out = tmp_path / "two_per_task"
    select = ["--benchmark", "hellobench:all", "--per-group", "2", "--shortest"]
    assert (
        main(
            ["run", *select, "--model", f"replay:{generations}", "--judge", f"replay:{verdicts}"] + ["--out", str(out)]
        )
        == 0
    )
    drawn = {}
    real_save = report_plots.save

    def saving(figure, path):
        drawn[path.name] = figure.axes[0]
        return real_save(figure, path)

    monkeypatch.setattr(report_plots, "save", saving)
    for made in ("report.md", ".plots.json"):  # as before the first report: every plot drawn
        (out / made).unlink()
    write_report(out)
    axis = drawn["score_per_task.png"]
    bars = [c for c in axis.containers if isinstance(c, ErrorbarContainer)]
    assert len(bars) == 1 and "error bars: 95% CI" in " ".join(axis.get_title().split())  # a long title wraps
    segments = bars[0].lines[2][0].get_segments()  # one vertical line per task: (x, low) -> (x, high)
    scores = load_scores(out).document()
    with_one = [t for t in scores["tasks"] if scores["intervals"][t]]
    expected = [scores["intervals"][t][side] for t in with_one for side in ("low", "high")]
    assert [y for segment in segments for _, y in segment if not math.isnan(y)] == pytest.approx(expected)
    widths = [high - low for low, high in zip(expected[::2], expected[1::2], strict=True)]
    # heuristic's 2 prompts score alike: no interval (never a zero width), and scores.json says why
    assert len(with_one) >= 4 and all(width > 0 for width in widths)
    for task in set(scores["tasks"]) - set(with_one):
        assert scores["interval_notes"][task] == "the prompts' values do not vary: no variance to estimate"
    assert (out / "score_per_task.png").stat().st_size > 1000


def test_a_measured_judge_noise_says_which_to_buy(gpt4o_replays, tmp_path):
    generations, _ = gpt4o_replays
    out = tmp_path / "noisy"
    with FaultServer(ok_answer=noisy_verdict) as server:
        assert main(noisy_run(generations, server.url, out, "--judge-samples", "3")) == 0
    scores = load_scores(out).document()
    # every row scores 50, 75 and 100 with the three seeds: the row means are all 75, so the figure's measured
    # variance is 0: no interval (never a zero width), and no split of a variance that was not measured
    assert scores["intervals"]["overall"] is None and "overall" not in scores["variance_split"]
    assert scores["interval_notes"]["overall"] == "the prompts' values do not vary: no variance to estimate"
    assert scores["judge_sd"] == pytest.approx(25.0)
    report = (out / "report.md").read_text()
    assert "No interval: `overall`: the prompts' values do not vary: no variance to estimate" in report
    # a judge part estimated above the measured total is capped at it: one SE, all of it the judge's, so twice the
    # judge samples buy as much as twice the prompts
    parts = VarianceSplit(total=1.0, judge=2.0, per_sample=6.0, n=3, judge_samples=3.0)
    split = parts.to_dict() | what_more_buys(parts)
    assert split["se"] == pytest.approx(1.0)
    assert split["se_twice_the_judge_samples"] == pytest.approx(split["se"] / math.sqrt(2))
    assert split["se_twice_the_prompts"] == pytest.approx(split["se"] / math.sqrt(2))
    line = variance_advice("overall", VarianceParts.model_validate(split), 3, 1.0)
    assert "0% of the variance from the prompts, 100% from the judge" in line
    assert f"to {split['se_twice_the_prompts']:.3f}; doubling the judge samples (3 to 6), to" in line
    assert line.endswith("100% of that gain without a new generation: buy judge samples.")


def test_where_the_prompts_dominate_the_advice_is_more_prompts():
    parts = VarianceSplit(total=4.0, judge=0.5, per_sample=1.0, n=100, judge_samples=2.0)
    found = parts.to_dict() | what_more_buys(parts)
    line = variance_advice("overall", VarianceParts.model_validate(found), 2, 1.0)
    assert "88% of the variance from the prompts, 12% from the judge" in line
    assert f"(100 to 200) would bring the SE to {math.sqrt(2.0):.3f}" in line  # (3.5 + 0.5) / 2
    assert f"(2 to 4), to {math.sqrt(3.75):.3f}" in line  # 3.5 + 0.25
    assert line.endswith("buy prompts.")


def test_a_pairwise_win_rate_whose_interval_holds_even_is_a_tie_not_a_win():
    benchmark = create_benchmark("tencentllmeval", "en")
    base = {"win_rate": 0.55, "gsb": 0.1, "baseline": "B", "flip_rate": 0.0, "length_controlled_win_rate": None}
    headline = lambda figures: sections_for(benchmark).headline(  # noqa: E731
        scores_with("tencentllmeval", "en", PAIRWISE_FIGURES | figures)
    )
    tie = base | {"intervals": {"win_rate": {"low": 0.45, "high": 0.65, "se": 0.05, "n": 80}}}
    assert headline(tie)[0] == "55.0 [45.0, 65.0]"
    assert "a tie with the baseline at 95%" in headline(tie)[1]
    ahead = base | {"intervals": {"win_rate": {"low": 0.52, "high": 0.6, "se": 0.02, "n": 400}}}
    assert "tie" not in headline(ahead)[1]
    assert headline(base | {"intervals": {"win_rate": None}})[0] == "55.0 [no interval]"
    assert headline(base)[0] == "55.0"  # a scores.json from before intervals


def test_rich_markup_in_a_run_name_shows_literally_in_the_leaderboard(gpt4o_replays, tmp_path):
    generations, verdicts = gpt4o_replays
    hostile = tmp_path / "[a](javascript:alert(1)).jsonl"  # the model's name is `replay:` and this path
    hostile.write_text(generations.read_text())
    out = tmp_path / "[bold red]run[/bold red]"
    assert main(chat_run(2, f"replay:{hostile}", f"replay:{verdicts}", str(out))) == 0
    shown = rendered(leaderboard([out]))
    assert "[a](javascript:alert(1)).jsonl" in shown and "[bold red]run[/bold red]" in shown


def test_the_way_to_measure_judge_noise_that_the_report_gives_works(gpt4o_replays, tmp_path):
    generations, _ = gpt4o_replays
    out, greedy = tmp_path / "once", tmp_path / "greedy"
    with FaultServer(ok_answer=noisy_verdict) as server:
        assert main(noisy_run(generations, server.url, out)) == 0
        assert main(noisy_run(generations, server.url, greedy, "--judge-temperature", "0")) == 0
        assert "`longform-eval judge FOLDER --judge-samples 2`" in (out / "report.md").read_text()
        assert main(["judge", str(out), "--judge-samples", "2"]) == 0
    assert main(["score", str(out)]) == 0 and main(["report", str(out)]) == 0
    assert "Judge noise measured with 2 judge samples per call" in (out / "report.md").read_text()
    section = (greedy / "report.md").read_text().split("## Where the variance comes from\n\n")[1]
    assert section.startswith("The judge samples at temperature 0: another sample of it gives the same verdict")
