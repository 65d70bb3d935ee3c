"""`run` again on a finished run makes no call and keeps its scores.json where that was scored from what the folder
holds now; any change to what the figures rest on (a verdict, the code) scores it again."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from longform_eval.inference.benchmarks.hellobench import HelloBench
from longform_eval.inference.cli import main

from .conftest import chat_run


@pytest.fixture(scope="module")
def finished(gpt4o_replays, tmp_path_factory) -> tuple[Path, list[str]]:
    generations, verdicts = gpt4o_replays
    folder = tmp_path_factory.mktemp("rerun") / "run"
    arguments = chat_run(4, f"replay:{generations}", f"replay:{verdicts}", str(folder))
    assert main(arguments) == 0
    return folder, arguments


def copied(finished: tuple[Path, list[str]], tmp_path: Path) -> tuple[Path, list[str]]:
    folder, arguments = finished
    copy = Path(shutil.copytree(folder, tmp_path / "run"))
    return copy, [*arguments[:-1], str(copy)]


def count_scoring(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A list that grows by one each time the benchmark scores."""
    scored: list[int] = []
    score = HelloBench.score
    monkeypatch.setattr(HelloBench, "score", lambda *args: scored.append(1) or score(*args))
    return scored


def test_a_rerun_that_makes_no_call_keeps_the_current_scores(finished, tmp_path, monkeypatch):
    folder, arguments = copied(finished, tmp_path)
    before = (folder / "scores.json").read_bytes(), (folder / "scores.json").stat().st_mtime_ns
    scored = count_scoring(monkeypatch)
    assert main(arguments) == 0 and not scored
    assert ((folder / "scores.json").read_bytes(), (folder / "scores.json").stat().st_mtime_ns) == before
    assert main(["score", str(folder)]) == 0 and scored  # the `score` command always scores again


def test_a_changed_verdict_is_scored_again_by_the_rerun(finished, tmp_path, monkeypatch):
    folder, arguments = copied(finished, tmp_path)
    log = folder / "judgements.jsonl"
    records = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    first = records[0]
    assert first["verdict"] and all(isinstance(value, float) for value in first["verdict"])
    first["verdict"] = [0.0 if value else 1.0 for value in first["verdict"]]
    log.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    before = json.loads((folder / "scores.json").read_text(encoding="utf-8"))
    assert main(arguments) == 0
    after = json.loads((folder / "scores.json").read_text(encoding="utf-8"))
    row_score = lambda scores: next(r["row_score"] for r in scores["rows"] if r["id"] == first["sample_id"])  # noqa: E731
    assert after["inputs"] != before["inputs"] and row_score(after) != row_score(before)


def test_other_code_scores_the_rerun_again(finished, tmp_path, monkeypatch):
    from longform_eval.inference.runner import inputs

    folder, arguments = copied(finished, tmp_path)
    monkeypatch.setattr(inputs, "code_identity", lambda: "another version of the code")
    scored = count_scoring(monkeypatch)
    assert main(arguments) == 0 and scored
