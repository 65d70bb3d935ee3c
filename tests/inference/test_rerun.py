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


@pytest.mark.parametrize("log", ["judgements.jsonl", "generations.jsonl"])
def test_a_record_whose_sample_id_is_not_a_string_is_one_line_naming_it(finished, tmp_path, capsys, log):
    """Every record is typed before any of its fields is used as a key: `report` names the file, line and field."""
    folder, _ = copied(finished, tmp_path)
    path = folder / log
    lines = path.read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0]) | {"sample_id": ["not", "a", "string"]}
    path.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["report", str(folder)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:1" in err and "sample_id" in err and "Traceback" not in err


def test_a_plug_in_benchmarks_rerun_is_scored_again(gpt4o_replays, tmp_path, monkeypatch):
    """A plug-in's code is not in the code's identity: its run is scored again on every rerun."""
    from longform_eval.inference.api import stages

    folder, arguments = copied_run(gpt4o_replays, tmp_path)
    monkeypatch.setattr(HelloBench, "__module__", "someone_elses_plugin.benchmark")
    assert not stages.scored_already(stages.Run.open(folder, read_only=True))
    monkeypatch.undo()
    assert stages.scored_already(stages.Run.open(folder, read_only=True))


def copied_run(gpt4o_replays, tmp_path: Path) -> tuple[Path, list[str]]:
    generations, verdicts = gpt4o_replays
    arguments = chat_run(2, f"replay:{generations}", f"replay:{verdicts}", str(tmp_path / "run"))
    assert main(arguments) == 0
    return tmp_path / "run", arguments
