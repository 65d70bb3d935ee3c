"""What the toolkit prints and writes reads right: no `p = 0`, brackets that close, one precision per interval, a
count of one with its noun in the singular (issue 49: `1 attempts`, `1 human votes`), and no setting a command does
not use (`generate --dry-run` names no judge)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import longform_eval as le
from longform_eval.common.plurals import counted, plural
from longform_eval.inference.cli import main
from longform_eval.inference.report.sections.tables import fmt_p, signed_with_interval

from .conftest import released, write_replay

NUMBER = r"[-+]?\d+(?:\.(\d+))?"
INTERVAL = re.compile(rf"(?<![\w.]){NUMBER}%? \[{NUMBER}%?, {NUMBER}%?\]")
P_ZERO = re.compile(r"\bp = 0(?![.\d])")
SLIPS = {re.compile(r";\s*\)"): "an empty clause before ')'"}
# A count of one with a plural noun: the word after a standalone `1`, or the word after that where the first is one
# of MODIFIERS (`1 new tokens`, `1 human votes`); SINGULAR_S are the words that end in s in the singular (and `s`,
# `ms`: seconds). `0.1 s`, `11 runs`, `-1 points` and `1,000 rows` are other numbers than one.
ONE_THEN = re.compile(r"(?<![\w.,+-])1 ([a-z]+)(?: ([a-z]+))?")
MODIFIERS = {"new", "human", "generation", "judge", "prompt", "scored", "judged", "matched", "more", "local", "unknown"}
SINGULAR_S = {"s", "ms", "is", "was", "has", "does", "its", "as", "plus", "less", "process", "pass", "class"}
SINGULAR_S |= {"status", "bias", "analysis", "axis", "focus", "loss", "access", "success"}


def wording_problems(text: str) -> list[str]:
    problems = []
    for number, line in enumerate(text.splitlines(), start=1):
        if P_ZERO.search(line):
            problems.append(f"line {number}: p = 0 (a p-value is never 0): {line}")
        problems += [f"line {number}: {slip}: {line}" for pattern, slip in SLIPS.items() if pattern.search(line)]
        problems += [f"line {number}: 1 {noun}: {line}" for noun in one_with_plural(line)]
        for found in INTERVAL.finditer(line):
            if len({len(decimals or "") for decimals in found.groups()}) > 1:
                problems.append(f"line {number}: mixed precision in {found[0]!r}")
    for opening, closing in ("()", "[]"):  # over the whole text: a table folds a long cell over lines
        if text.count(opening) != text.count(closing):
            problems.append(
                f"unbalanced {opening}{closing}: {text.count(opening)} opened, {text.count(closing)} closed"
            )
    return problems


def one_with_plural(text: str) -> list[str]:
    """The plural nouns `text` counts one of (`1 attempts` -> ["attempts"])."""
    found = []
    for first, second in ONE_THEN.findall(text):
        noun = second if first in MODIFIERS and second else first
        if noun.endswith("s") and noun not in SINGULAR_S:
            found.append(f"{first} {second}" if noun == second else noun)
    return found


def test_the_checker_finds_each_slip():
    assert len(wording_problems("a - b = +8.769 [+3.203, +14.86], p = 0: distinguishable")) == 2
    assert wording_problems("heuristic_text_generation (n = 5") != []
    assert wording_problems("+8.77 [+3.20, +14.86], p < 0.001 (n = 5)") == []
    assert len(wording_problems("score - (scale -300..100; ), up to 1 attempts")) == 2


def test_the_checker_tells_one_from_other_numbers():
    assert one_with_plural("1 samples; 1 generation calls, up to 1 new tokens, 1 human votes") == [
        "samples", "generation calls", "new tokens", "human votes",
    ]  # fmt: skip
    assert one_with_plural("report of  1 runs (whole command); 1 battles, fewer than 20") == ["runs", "battles"]
    fine = "1 sample; 1 attempt each, 1 class, 0.1 s, 1 s, 11 runs, 21 runs, 1,000 rows, -1 points, 1 of 2 runs"
    assert one_with_plural(fine) == [] and one_with_plural("1 new token, 1 judge call failed and stays") == []


def test_the_helper_puts_a_count_with_its_noun():
    assert [counted(n, "attempt") for n in (0, 1, 2)] == ["0 attempts", "1 attempt", "2 attempts"]
    assert counted(1, "generation call") == "1 generation call" and counted(3, "entry") == "3 entries"
    assert counted(2, "class") == "2 classes" and counted(2, "day") == "2 days" and counted(1, "entry") == "1 entry"
    assert counted(1638400, "new token", spec=",") == "1,638,400 new tokens"
    assert counted(2, "analysis", "analyses") == "2 analyses"
    assert plural(1, "run") == "run" and plural(-1, "run") == "run" and plural(1.5, "run") == "runs"


def test_a_run_with_nothing_scored_and_one_attempt_reads_right(two_runs):
    from longform_eval.inference.hub.run_card import judge_settings
    from longform_eval.inference.report.markdown import benchmark_of, load_scores, scale_note
    from longform_eval.inference.runner import Run

    assert scale_note(benchmark_of(load_scores(two_runs[0])), "") == "scale -300..100"
    config = Run.open(two_runs[0], read_only=True).config.model_copy(update={"judge_attempts": 1})
    assert wording_problems(judge_settings(config)) == [] and "1 attempt," in judge_settings(config)


def test_p_values_and_differences_print_as_a_reader_takes_them():
    assert [fmt_p(p) for p in (0.0, 1e-9, 0.0004, 0.0123, 0.345, 1.0, None)] == [
        "< 0.001", "< 0.001", "< 0.001", "0.012", "0.34", "1.00", "-",
    ]  # fmt: skip
    assert signed_with_interval(8.769, 3.203, 14.86) == "+8.77 [+3.20, +14.86]"
    assert signed_with_interval(0.0, 0.0, 0.0) == "+0.00 [+0.00, +0.00]"


@pytest.fixture(scope="module")
def two_runs(shared_data: Path, tmp_path_factory) -> tuple[Path, Path]:
    """GPT-4o and Qwen2-7B on 40 chat prompts, from their released answers and GPT-4o's released verdicts."""
    work = tmp_path_factory.mktemp("wording")
    runs = []
    for model in ("gpt4o_0806", "qwen2_7b"):
        answers = write_replay(
            work / f"{model}-gen.jsonl", ((r["id"], r["response"]) for r in released(shared_data, "generations", model))
        )
        verdicts = write_replay(
            work / f"{model}-judge.jsonl",
            ((r["id"], json.dumps(r["checklist_wise_evaluation"])) for r in released(shared_data, "judgements", model)),
        )
        out = work / model
        le.run(benchmark="hellobench:chat", model=f"replay:{answers}", judge=f"replay:{verdicts}", out=out, limit=40)
        runs.append(out)
    return runs[0], runs[1]


def test_report_compare_and_the_api_print_without_slips(two_runs, capsys, tmp_path):
    a, b = two_runs
    assert main(["report", str(a), str(b), "--out", str(tmp_path / "cmp")]) == 0
    printed = capsys.readouterr()
    texts = {
        "printed": printed.out + printed.err,
        "report.md": (a / "report.md").read_text(encoding="utf-8"),
        "le.compare": str(le.compare([a, b])),
        "le.open_run": repr(le.open_run(a)),
    }
    problems = [f"{name}: {problem}" for name, text in texts.items() for problem in wording_problems(text)]
    assert problems == []


def test_replaying_gpt4o_s_own_verdicts_is_not_called_a_deviation(gpt4o_replays, tmp_path):
    """Recorded completions bring the settings they were made with; what is compared is who made them."""
    answers, verdicts = gpt4o_replays
    settings = {"benchmark": "hellobench:chat", "model": f"replay:{answers}", "judge": f"replay:{verdicts}", "limit": 5}
    recorded_as = {"name": "GPT-4o", "judge_name": "gpt-4o", "max_new_tokens": 4096}  # run.py's limit for GPT-4o
    named = le.run(**settings, out=tmp_path / "named", **recorded_as)
    assert json.loads(named.scores_path.read_text())["deviations"] == []
    assert "not comparable with the paper" not in (tmp_path / "named" / "report.md").read_text(encoding="utf-8")
    unnamed = le.run(**settings, out=tmp_path / "unnamed")
    deviations = json.loads(unnamed.scores_path.read_text())["deviations"]
    assert deviations[0].startswith("judge model = verdicts recorded by a judge not named (--judge-name names it)")
    assert len(deviations) == 1  # the default limit, used: no deviation (issue 45)


ONE_OF_EVERYTHING = ["--benchmark", "hellobench:chat", "--limit", "1", "--model", "openai:gpt-4o-mini"]
ONE_OF_EVERYTHING += ["--max-new-tokens", "1"]  # a dry run makes no call: no key, no server


def test_every_command_s_help_and_the_dry_runs_count_one_in_the_singular(capsys, tmp_path, monkeypatch):
    """Each command's --help, and `run --dry-run` as the README starts (the embedded demo: one judge attempt) and
    with one row, one new token, one judge attempt and one judge token."""
    from .test_cli_help import commands

    monkeypatch.chdir(tmp_path)  # the demo's dry run names runs/default/..., and writes nothing
    texts = {f"{name} --help": command.format_help() for name, command in commands().items()}
    judged = ["--judge", "openai:gpt-4o", "--judge-attempts", "1", "--judge-max-new-tokens", "1"]
    for argv in (["run", "--dry-run"], ["run", *ONE_OF_EVERYTHING, *judged, "--out", "one", "--dry-run"]):
        assert main(argv) == 0
        texts[" ".join(argv)] = capsys.readouterr().out
    problems = [f"{name}: {problem}" for name, text in texts.items() for problem in wording_problems(text)]
    assert problems == []
    one = texts[" ".join(["run", *ONE_OF_EVERYTHING, *judged, "--out", "one", "--dry-run"])]
    assert "1 sample; 1 generation call to openai:gpt-4o-mini" in one and "up to 1 new token\n" in one
    assert "up to 1 attempt each, max 1 new token" in one


def test_generate_s_dry_run_names_no_judge_setting(capsys, tmp_path):
    """`generate` calls no judge: its dry run has no judge line (it printed `to -, up to 3 attempts each`)."""
    assert main(["generate", *ONE_OF_EVERYTHING, "--out", str(tmp_path / "g"), "--dry-run"]) == 0
    printed = capsys.readouterr().out.replace(str(tmp_path), "TMP")
    assert "1 generation call to openai:gpt-4o-mini" in printed
    assert "judge" not in printed and "attempt" not in printed and wording_problems(printed) == []


def test_pending_and_failed_calls_count_one_in_the_singular():
    from collections import Counter

    from longform_eval.inference.runner.pending import PendingCalls

    pending = PendingCalls(Path("run"), Path("run/failures.jsonl"), 1, 1, Counter({"judge: HTTP 500": 1}))
    text = "\n".join(pending.lines())
    assert (
        "run: 1 call failed and stays pending" in text and "1 call not made yet (1 generation and 1 judge call" in text
    )
    assert wording_problems(text) == []


def test_the_arena_and_the_metrics_count_one_in_the_singular():
    """The arena's board after one vote (summary, tables, notes; a model's `1 battle`), its note on one skipped run,
    and a metric's refusal of one completion for three checks."""
    from dataclasses import astuple

    from longform_eval.metric.longgenbench.inputs import item_completions
    from longform_eval.spaces.leaderboard import compute_board
    from longform_eval.spaces.records import Vote
    from longform_eval.spaces.skipped import skipped_markdown

    board = compute_board([Vote("ann", "s", "hellobench:all/q0", "m1", "m2", "sorted", "A", "A")], bootstrap=10)
    cells = [str(cell) for part in astuple(board) if isinstance(part, list) for row in part for cell in row]
    texts = [part for part in astuple(board) if isinstance(part, str)] + cells
    texts.append(skipped_markdown(["runs/x: unreadable"]))
    with pytest.raises(ValueError) as refused:
        item_completions([["yes"]], 0, 3)
    texts.append(str(refused.value))
    text = "\n".join(texts)
    assert "**1 human vote**" in text and "1 battle, fewer than" in text and "1 completion for 3 checks" in text
    assert "**1 run not shown" in text and [p for p in map(wording_problems, texts) if p] == []


def test_the_bench_results_count_one_in_the_singular():
    results = Path(__file__).resolve().parents[2] / "bench" / "RESULTS.md"
    text = results.read_text(encoding="utf-8")
    assert "report of  1 run  (whole command)" in text
    assert [line for line in text.splitlines() if one_with_plural(line)] == []
