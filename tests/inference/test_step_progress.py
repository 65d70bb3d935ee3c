"""No long silence between the bars of a run (issue 49.6): building the judge's prompts has a progress line of its own
(HelloBench tokenizes every answer for its judge), and so has scoring where it has word counts to make; each answer is
tokenized once per run (the judge step's tokens give its word count), not once to judge and once to count."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable

import pytest

from longform_eval.inference.benchmarks import hellobench
from longform_eval.inference.benchmarks.hellobench import WORD_COUNT, HelloBench
from longform_eval.inference.cli import main
from longform_eval.inference.runner import derived
from longform_eval.metric.helloeval import prompt
from longform_eval.metric.words import word_count

from .conftest import chat_run

LIMIT = 6


def counting(function: Callable[[str], object], seen: Counter) -> Callable[[str], object]:
    def counted(text: str) -> object:
        seen[text] += 1
        return function(text)

    return counted


@pytest.fixture
def tokenized(monkeypatch, tmp_path) -> Counter:
    """Every tokenizing of an answer, by its text (to judge it and to count its words), with the cache of derived
    values in a folder of this test's own (nothing counted before)."""
    seen: Counter = Counter()
    monkeypatch.setattr(derived, "cache_root", lambda: tmp_path / "cache")
    monkeypatch.setattr(hellobench, "word_tokenize", counting(hellobench.word_tokenize, seen))
    monkeypatch.setattr(prompt, "word_tokenize", counting(prompt.word_tokenize, seen))
    monkeypatch.setattr(HelloBench, "response_values", {WORD_COUNT: counting(word_count, seen)})
    return seen


def bar(err: str, label: str) -> list[str]:
    """The progress lines of `label` (printed once, in their final state: no terminal here)."""
    return [line for line in err.splitlines() if line.startswith(f"{label} (")]


def test_a_run_shows_the_prompts_step_and_tokenizes_each_answer_once(gpt4o_replays, tmp_path, tokenized, capsys):
    generations, verdicts = gpt4o_replays
    out = tmp_path / "run"
    assert main(chat_run(LIMIT, f"replay:{generations}", f"replay:{verdicts}", str(out))) == 0
    err = capsys.readouterr().err
    (prompts,) = bar(err, "judge prompts")
    assert re.search(rf" {LIMIT}/{LIMIT} .* ETA ", prompts), prompts
    assert bar(err, "word counts") == []  # the judge step counted them: scoring has nothing left to tokenize
    assert len(tokenized) == LIMIT and set(tokenized.values()) == {1}, tokenized
    answers = {json.loads(line)["key"]: json.loads(line)["text"] for line in generations.read_text().splitlines()}
    assert words_of(out) == {key: word_count(answers[key]) for key in words_of(out)}  # len(tokens) is the count


def words_of(out) -> dict[str, int]:
    """Each row's word count, as scores.json keeps it."""
    return {r["id"]: r["words"] for r in json.loads((out / "scores.json").read_text(encoding="utf-8"))["rows"]}


def test_scoring_shows_its_word_counts_when_it_has_to_make_them(gpt4o_replays, tmp_path, tokenized, capsys):
    generations, verdicts = gpt4o_replays
    out = tmp_path / "run"
    assert main(chat_run(LIMIT, f"replay:{generations}", f"replay:{verdicts}", str(out))) == 0
    counted = words_of(out)
    capsys.readouterr()
    for found in (tmp_path / "cache").rglob("*.json"):  # nothing kept: a run folder copied to another machine
        found.unlink()
    tokenized.clear()
    assert main(["score", str(out)]) == 0
    (counts,) = bar(capsys.readouterr().err, "word counts")
    assert re.search(rf" {LIMIT}/{LIMIT} .* ETA ", counts), counts
    assert len(tokenized) == LIMIT and set(tokenized.values()) == {1}, tokenized
    assert words_of(out) == counted
    tokenized.clear()
    assert main(["score", str(out)]) == 0  # kept this time: no second count, no line
    assert bar(capsys.readouterr().err, "word counts") == [] and not tokenized
