"""What `run` and `report` print fits the terminal (issue 36): no line wider than COLUMNS, the headline figure and its
interval whole, progress bars that keep their count, rate and ETA (the description gives way), and the published rows
and the embedded judge's agreement only beside a run they apply to."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from rich.cells import cell_len

from longform_eval.inference.cli import main
from longform_eval.inference.progress import shortened
from longform_eval.inference.report.markdown import leaderboard, load_scores
from longform_eval.inference.report.sections import context as report_context
from longform_eval.inference.report.summary import wrapped

from .conftest import chat_run

ESCAPES = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")  # what a live bar adds to draw itself: colours, cursor moves
INTERVAL = re.compile(r"-?\d+\.\d+ \[-?\d+\.\d+, -?\d+\.\d+\]")
AGREEMENT = "Agreement of"
LIMIT = 8


def screen_lines(text: str) -> list[str]:
    """The lines a terminal shows: escape codes removed, a bar redrawn in place (`\\r`) counted as its own line."""
    return [line for line in re.split(r"[\r\n]", ESCAPES.sub("", text)) if line.strip()]


def too_wide(text: str, width: int) -> list[str]:
    """The lines wider than `width`, but for a path alone on its line, which stays whole to be copied (`wrapped`)."""
    return [line for line in screen_lines(text) if cell_len(line) > width and not Path(line.strip()).exists()]


def headline(folder: Path) -> str:
    scores = load_scores(folder).document()
    interval = scores["intervals"]["overall"]
    return f"{scores['overall']:.2f} [{interval['low']:.2f}, {interval['high']:.2f}]"


def cli(args: list[str], width: int, terminal: bool) -> subprocess.CompletedProcess:
    """`longform-eval ARGS` in its own process, as a user's terminal runs it: COLUMNS=width; `terminal`: live bars
    (rich's TTY_COMPATIBLE=1, as a terminal draws them), else none (TTY_COMPATIBLE=0, a log file)."""
    env = os.environ | {"COLUMNS": str(width), "TTY_COMPATIBLE": "1" if terminal else "0"}
    env.pop("LINES", None)
    code = "import sys; from longform_eval.inference.cli import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run(
        [sys.executable, "-c", code, *args], env=env, capture_output=True, text=True, timeout=300, check=False
    )


@pytest.fixture(scope="module", params=[(80, True), (120, False)], ids=["80-terminal", "120-log"])
def printed_run(request, gpt4o_replays, tmp_path_factory):
    """A small replay run printed at a width: its folder, stdout and stderr."""
    width, terminal = request.param
    generations, verdicts = gpt4o_replays
    out = tmp_path_factory.mktemp(f"w{width}") / "run"
    args = chat_run(LIMIT, f"replay:{generations}", f"replay:{verdicts}", str(out), "--judge-name", "GPT-4o verdicts")
    done = cli(args, width, terminal)
    assert done.returncode == 0, done.stderr
    return width, out, done.stdout, done.stderr


def test_run_prints_nothing_wider_than_the_terminal(printed_run):
    width, out, stdout, stderr = printed_run
    assert too_wide(stdout, width) == [] and too_wide(stderr, width) == []
    figure = headline(out)
    summary = stdout.split("\nsummary\n")[1]
    assert any(line.startswith(f"  score {figure} ") for line in summary.splitlines())
    board = stdout.split("\nsummary\n")[0]
    assert any(figure in line for line in board.splitlines())  # the leaderboard's score cell: whole, one line


def test_progress_bars_keep_count_rate_and_eta(printed_run):
    width, _, _, stderr = printed_run
    bars = [line for line in screen_lines(stderr) if line.startswith(("generate (", "judge ("))]
    generate = [line for line in bars if line.startswith("generate (")]
    judge = [line for line in bars if line.startswith("judge (")]
    assert generate and judge
    for line in generate + judge:
        assert re.search(rf" +\d+/{LIMIT} ", line), line  # the count
        assert re.search(r" (\d+\.\d+|\d+|--) ?/s ", line), line  # the rate
        assert re.search(r" ETA (\d+:\d\d:\d\d|-:--:--)\s*$", line), line
    done = f" {LIMIT}/{LIMIT} "
    assert any(done in line for line in generate) and any(done in line for line in judge)
    assert all(line.startswith("judge (GPT-4o verdicts)") for line in judge)  # the display label, not a file path
    if width == 80:  # the replay file's path does not fit beside the figures: its middle gives way
        assert all(line.startswith("generate (replay") and "…" in line.split(" ")[1] for line in generate), generate


def test_a_replay_judge_gets_neither_the_published_rows_nor_the_embedded_judges_agreement(printed_run):
    _, out, stdout, _ = printed_run
    assert "(published)" not in stdout and AGREEMENT not in stdout
    report = (out / "report.md").read_text()
    assert "(published)" in report  # report.md keeps the context, labelled as another judge's


@pytest.mark.parametrize("width", [80, 120])
def test_report_prints_nothing_wider_than_the_terminal(printed_run, width, capsys, monkeypatch):
    _, out, _, _ = printed_run
    monkeypatch.setenv("COLUMNS", str(width))
    assert main(["report", str(out)]) == 0
    printed = capsys.readouterr().out
    assert too_wide(printed, width) == [], printed
    assert any(headline(out) in line for line in printed.splitlines())
    assert "(published)" not in printed and AGREEMENT not in printed
    if width == 80:  # the columns that did not fit are named, not cut
        assert "Left out at 80 columns:" in printed


def test_published_rows_stand_beside_a_run_judged_by_the_papers_judge(gpt4o_replays, tmp_path, capsys, monkeypatch):
    """A replay of GPT-4o's released verdicts under the paper's judge's name: its figure ranks beside the published
    ones, every figure with its interval whole at 80 columns."""
    generations, verdicts = gpt4o_replays
    judge = tmp_path / "gpt-4o"
    shutil.copyfile(verdicts, judge)
    out = tmp_path / "r"
    assert main(chat_run(LIMIT, f"replay:{generations}", f"replay:{judge}", str(out))) == 0
    capsys.readouterr()
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["report", str(out)]) == 0
    printed = capsys.readouterr().out
    assert too_wide(printed, 80) == [], printed
    rows = [line for line in printed.splitlines() if "(published)" in line or "published " in line]
    assert len(rows) >= 6 and all(INTERVAL.search(line) for line in rows if line.startswith("published")), rows
    assert "48.55 [" in printed and headline(out) in printed
    assert AGREEMENT not in printed


def test_the_agreement_paragraph_goes_with_the_embedded_judge_only(gpt4o_replays, tmp_path):
    generations, verdicts = gpt4o_replays
    out = tmp_path / "r"
    assert main(chat_run(2, f"replay:{generations}", f"replay:{verdicts}", str(out))) == 0
    assert report_context.agreement_applies("local:default")  # the shipped measurement is of the embedded judge
    assert not report_context.agreement_applies(f"replay:{verdicts}") and not report_context.agreement_applies(None)
    scores = json.loads((out / "scores.json").read_text())
    (out / "scores.json").write_text(json.dumps(scores | {"judge": "local:default"}))  # as if the embedded judge
    caption = str(leaderboard([out], 80).caption)
    assert AGREEMENT in caption and "(published)" not in caption


def test_a_long_description_is_shortened_in_its_middle_and_a_wrapped_line_keeps_its_interval():
    path = "judge (replay:/a/very/long/folder/of/replays/judge.jsonl)"
    short = shortened(path, 30)
    assert cell_len(short) == 30 and short.startswith("judge (replay:") and short.endswith("judge.jsonl)")
    assert shortened("judge (gpt-4o)", 30) == "judge (gpt-4o)"
    line = "  score 12.34 [-100.16, 81.02] (scale -300..100; open 54.82 summ 29.71 chat 42.88 text 67.49)"
    for width in (30, 40, 50):
        lines = wrapped(line, width, whole=("score 12.34 [-100.16, 81.02]",))
        assert all(len(part) <= width for part in lines) and "score 12.34 [-100.16, 81.02]" in lines[0]
