"""What the toolkit prints and writes reads right: no `p = 0`, brackets that close, one precision per interval."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import longform_eval as le
from longform_eval.inference.cli import main
from longform_eval.inference.report.sections.tables import fmt_p, signed_with_interval

from .conftest import released, write_replay

NUMBER = r"[-+]?\d+(?:\.(\d+))?"
INTERVAL = re.compile(rf"(?<![\w.]){NUMBER}%? \[{NUMBER}%?, {NUMBER}%?\]")
P_ZERO = re.compile(r"\bp = 0(?![.\d])")
SLIPS = {re.compile(r"\b1 attempts\b"): "1 attempts", re.compile(r";\s*\)"): "an empty clause before ')'"}


def wording_problems(text: str) -> list[str]:
    problems = []
    for number, line in enumerate(text.splitlines(), start=1):
        if P_ZERO.search(line):
            problems.append(f"line {number}: p = 0 (a p-value is never 0): {line}")
        problems += [f"line {number}: {slip}: {line}" for pattern, slip in SLIPS.items() if pattern.search(line)]
        for found in INTERVAL.finditer(line):
            if len({len(decimals or "") for decimals in found.groups()}) > 1:
                problems.append(f"line {number}: mixed precision in {found[0]!r}")
    for opening, closing in ("()", "[]"):  # over the whole text: a table folds a long cell over lines
        if text.count(opening) != text.count(closing):
            problems.append(
                f"unbalanced {opening}{closing}: {text.count(opening)} opened, {text.count(closing)} closed"
            )
    return problems


def test_the_checker_finds_each_slip():
    assert len(wording_problems("a - b = +8.769 [+3.203, +14.86], p = 0: distinguishable")) == 2
    assert wording_problems("heuristic_text_generation (n = 5") != []
    assert wording_problems("+8.77 [+3.20, +14.86], p < 0.001 (n = 5)") == []
    assert len(wording_problems("score - (scale -300..100; ), up to 1 attempts")) == 2


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
