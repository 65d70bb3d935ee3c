"""scores.json is one typed model (`RunScores`), written and read by the same code: a real run's file round-trips
through it exactly, a bad field is one line naming the file and the field, and the benchmarks' hooks receive it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from longform_eval.inference.benchmarks import Benchmark
from longform_eval.inference.benchmarks.hellobench import HelloBench
from longform_eval.inference.benchmarks.layouts import HelloBenchLayout, HelloRow
from longform_eval.inference.benchmarks.run_scores import RunScores, SampleUnits, ScoresInvalid
from longform_eval.inference.benchmarks.scores_json import run_scores
from longform_eval.inference.cli import main
from longform_eval.inference.report.json_file import DamagedFile
from longform_eval.inference.report.lengths import run_lengths
from longform_eval.inference.report.scores_file import load_scores
from longform_eval.inference.runner.scoring import write_scores

from .conftest import chat_run, released, write_replay


@pytest.fixture(scope="module")
def runs(shared_data, gpt4o_replays, tmp_path_factory) -> dict[str, Path]:
    """6 HelloBench chat prompts with GPT-4o's responses: judged once, and twice per call (its verdicts, then
    Llama's replayed as a second sample)."""
    generations, verdicts = gpt4o_replays
    folder = tmp_path_factory.mktemp("scores_model")
    reply = lambda record: json.dumps(record["checklist_wise_evaluation"], ensure_ascii=False)  # noqa: E731
    pairs = [(r["id"], reply(r)) for r in released(shared_data, "judgements", "gpt4o_0806")]
    pairs += [(r["id"] + "~s1", reply(r)) for r in released(shared_data, "judgements", "llama31_8b")]
    two = write_replay(folder / "two.jsonl", pairs)
    found = {"once": folder / "once", "twice": folder / "twice"}
    assert main(chat_run(6, f"replay:{generations}", f"replay:{verdicts}", str(found["once"]))) == 0
    twice = chat_run(6, f"replay:{generations}", f"replay:{two}", str(found["twice"]), "--judge-samples", "2")
    assert main(twice) == 0
    return found


@pytest.mark.parametrize("name", ["once", "twice"])
def test_a_real_scores_json_round_trips_through_the_typed_model_exactly(runs, tmp_path, name):
    path = runs[name] / "scores.json"
    text = path.read_text(encoding="utf-8")
    document = json.loads(text)
    scores = load_scores(runs[name])
    assert isinstance(scores, RunScores) and scores.document() == document
    assert list(scores.document()) == list(document)  # the fields in the order they were written
    assert isinstance(scores.figures, HelloBenchLayout) and all(isinstance(r, HelloRow) for r in scores.figures.rows)
    assert scores.benchmark == "hellobench" and scores.figures.overall == document["overall"]
    write_scores(tmp_path, scores)  # written by the same code that read it: the same bytes
    assert (tmp_path / "scores.json").read_text(encoding="utf-8") == text
    assert run_scores(json.loads(text)).document() == document


def test_the_judge_samples_units_are_typed_and_kept(runs):
    scores = load_scores(runs["twice"])
    assert scores.judge_samples == 2 and isinstance(scores.sample_units, SampleUnits)
    assert scores.sample_units.ids == [r.id for r in scores.figures.rows]
    assert load_scores(runs["once"]).sample_units is None


def test_the_model_is_immutable(runs):
    scores = load_scores(runs["once"])
    with pytest.raises(ValueError):
        scores.model = "another"
    changed = scores.document()
    changed["model"] = "another"  # a copy: the model keeps what was read
    assert scores.model != "another" and load_scores(runs["once"]).document()["model"] != "another"


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda d: d | {"n_samples": "six"}, "n_samples"),
        (lambda d: d | {"judge_samples": 0}, "judge_samples"),
        (lambda d: d | {"tasks": {"chat": d["tasks"]["chat"] | {"score": "high"}}}, "tasks.chat.score"),
        (lambda d: d | {"rows": [d["rows"][0] | {"subcategory": "no_such"}, *d["rows"][1:]]}, "rows.0.subcategory"),
        (lambda d: {k: v for k, v in d.items() if k != "overall"}, "overall"),
    ],
)
def test_a_bad_field_is_one_line_naming_the_file_and_the_field(runs, tmp_path, change, field):
    document = json.loads((runs["once"] / "scores.json").read_text(encoding="utf-8"))
    with pytest.raises(ScoresInvalid, match=f"^field '{field}': "):
        run_scores(change(document))
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "scores.json").write_text(json.dumps(change(document)), encoding="utf-8")
    with pytest.raises(DamagedFile) as refused:
        load_scores(folder)
    message = str(refused.value)
    assert message.startswith(f"{folder / 'scores.json'}: field '{field}': ") and "\n" not in message
    with pytest.raises(ScoresInvalid, match=f"scores.json: not written: field '{field}': "):
        write_scores(tmp_path, change(document))
    assert not (tmp_path / "scores.json").exists()


def test_an_unknown_field_is_kept_as_it_is(runs):
    """A field no model declares (another version's, another benchmark's) is read and written back unchanged."""
    document = json.loads((runs["once"] / "scores.json").read_text(encoding="utf-8")) | {"added_later": [1, "a"]}
    assert run_scores(document).document() == document


def test_the_hooks_receive_the_typed_scores(runs, monkeypatch):
    received: list[tuple[str, object]] = []
    for hook in ("length_targets", "unit_table"):
        original = getattr(HelloBench, hook)

        def spy(self: Benchmark, argument, _hook=hook, _original=original):
            received.append((_hook, argument))
            return _original(self, argument)

        monkeypatch.setattr(HelloBench, hook, spy)
    run_lengths([runs["once"]])
    assert main(["report", str(runs["once"])]) == 0
    assert main(["score", str(runs["twice"])]) == 0  # scoring: each judge sample's figures, typed
    kinds = {(hook, type(argument)) for hook, argument in received}
    assert ("length_targets", RunScores) in kinds and ("unit_table", HelloBenchLayout) in kinds
    assert all(isinstance(argument, (RunScores, HelloBenchLayout)) for _, argument in received)


def test_score_returns_the_typed_figures_that_scores_json_keeps(runs, monkeypatch):
    """`Benchmark.score` returns the benchmark's layout; the runner writes its JSON object unchanged."""
    returned: list[object] = []
    score = HelloBench.score
    monkeypatch.setattr(HelloBench, "score", lambda *args: returned.append(score(*args)) or returned[-1])
    assert main(["score", str(runs["twice"])]) == 0
    assert len(returned) == 2 and all(isinstance(figures, HelloBenchLayout) for figures in returned)
    written = load_scores(runs["twice"]).document()  # sample 0's figures; the top-level ones over both samples
    assert len(returned[0].rows) == 6 and written["rows"] == returned[0].document()["rows"]
    assert written["tasks"].keys() == returned[0].document()["tasks"].keys()


def test_a_plug_in_score_that_returns_no_figures_is_refused_naming_the_file(runs, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(HelloBench, "score", lambda *args: [1, 2])
    before = (runs["once"] / "scores.json").read_bytes()
    assert main(["score", str(runs["once"])]) != 0
    err = capsys.readouterr().err
    assert "scores.json: not written" in err and "returned list, not its figures" in err and "Traceback" not in err
    assert (runs["once"] / "scores.json").read_bytes() == before


def test_a_model_of_another_class_from_score_is_checked_as_the_layout(runs, tmp_path, monkeypatch, capsys):
    """A plug-in's own pydantic model is read as its JSON object: a field the layout refuses is named, not passed on."""
    from pydantic import BaseModel, ConfigDict

    class Own(BaseModel):
        model_config = ConfigDict(extra="allow")

    score = HelloBench.score
    monkeypatch.setattr(HelloBench, "score", lambda *args: Own(**score(*args).document()))
    assert main(["score", str(runs["once"])]) == 0
    monkeypatch.setattr(HelloBench, "score", lambda *args: Own(**score(*args).document() | {"n_scored": -1}))
    assert main(["score", str(runs["once"])]) != 0
    assert "field 'n_scored'" in capsys.readouterr().err
