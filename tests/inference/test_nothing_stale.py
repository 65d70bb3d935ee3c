"""Nothing stale (issue 44.3): every stored result of a run folder knows what made it, and the next read notices a
change of its records or of the code, and never believes a cache the folder holds over its records.

Small finished HelloBench chat runs replaying GPT-4o's released responses and verdicts (the real data)."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

import longform_eval as le
from longform_eval.common import code_identity as identity_module
from longform_eval.common.guarded import LOG
from longform_eval.common.hashing import files_hash, text_hash
from longform_eval.dataset_builder.sources import SOURCE_ENV
from longform_eval.inference.cli import main
from longform_eval.inference.report.scores_check import StaleScores
from longform_eval.inference.runner import scoring
from longform_eval.inference.runner.inputs import records_hash

from .conftest import replayed_chat_run

HEADLINE = re.compile(r"Headline: \*\*(.+?)\*\*")
STALE = "scores.json: not what the folder's records give now"


@pytest.fixture(scope="module")
def finished(gpt4o_replays, tmp_path_factory) -> Path:
    return replayed_chat_run(gpt4o_replays, tmp_path_factory.mktemp("stale") / "run", 4)


@pytest.fixture
def run(finished, tmp_path) -> Path:
    """A copy of the finished run, reported once."""
    copy = Path(shutil.copytree(finished, tmp_path / "run"))
    assert main(["report", str(copy)]) == 0
    return copy


def headline(folder: Path) -> str:
    return HEADLINE.search((folder / "report.md").read_text(encoding="utf-8")).group(1)


def rewrite_log(path: Path, change) -> None:
    """Each record of the JSON Lines file `path` through `change` (a record it returns None for is dropped)."""
    records = [change(json.loads(line)) for line in path.read_text(encoding="utf-8").splitlines()]
    path.write_text("".join(json.dumps(r) + "\n" for r in records if r is not None), encoding="utf-8")


def zero_first_verdict(folder: Path) -> str:
    """The first judgement's checklist scores set to zero (as a hand edit would); returns its sample id."""
    first = json.loads((folder / "judgements.jsonl").read_text(encoding="utf-8").splitlines()[0])

    def zeroed(record: dict) -> dict:
        if record["key"] == first["key"]:
            record["verdict"] = [0.0] * len(record["verdict"])
        return record

    rewrite_log(folder / "judgements.jsonl", zeroed)
    return first["sample_id"]


def test_an_edited_verdict_gives_another_headline_at_the_next_report(run, capsys):
    before, stored = headline(run), json.loads((run / "scores.json").read_text())
    zero_first_verdict(run)
    capsys.readouterr()
    assert main(["report", str(run)]) == 0
    err = capsys.readouterr().err
    assert headline(run) != before
    assert f"{run / 'scores.json'}: not what the folder's records give now" in err and "scored again" in err
    assert stored.get("inputs") != records_hash(run)  # scores.json knew what it was scored from
    scores = json.loads((run / "scores.json").read_text())
    assert scores["inputs"] == records_hash(run) and scores["overall"] < stored["overall"]
    capsys.readouterr()
    assert main(["report", str(run)]) == 0 and STALE not in capsys.readouterr().err  # said once, when it changed


def test_readers_that_write_nothing_serve_the_records_figures_and_say_so(run):
    sample = zero_first_verdict(run)
    stored = (run / "scores.json").read_bytes()
    with pytest.warns(StaleScores, match="recomputed from the records"):
        result = le.open_run(run)
    rows = result.to_pandas("rows").set_index("id")
    assert rows.loc[sample, "score"] == 0.0 and list(rows.loc[sample, "verdict"]) == [0.0] * len(
        rows.loc[sample, "verdict"]
    )  # the row's score is the one of the verdict beside it
    with pytest.warns(StaleScores):
        board = le.leaderboard([run]).to_pandas()
    assert board["score"].iloc[0] == pytest.approx(result.scores["overall"])
    assert (run / "scores.json").read_bytes() == stored  # nothing written by a reader
    assert main(["report", str(run)]) == 0  # the owner writes what the readers served
    assert json.loads((run / "scores.json").read_text())["overall"] == result.scores["overall"]


def old_folder_hash(folder: Path) -> str:
    """The key under which an earlier version kept its folder check in the folder's derived.json: anyone can
    compute it."""
    names = ["config.yaml", "rows.json.gz", *sorted(p.name for p in folder.glob("*.jsonl"))]
    header = f"{identity_module.code_identity()}\0{os.environ.get(SOURCE_ENV, '')}"
    return files_hash(header, [folder / name for name in names], LOG, follow_symlinks=False)


def test_a_forged_check_in_the_folder_hides_no_missing_judgement(run, capsys):
    first = json.loads((run / "judgements.jsonl").read_text().splitlines()[0])["key"]
    rewrite_log(run / "judgements.jsonl", lambda record: record if record["key"] == first else None)  # 3 left out
    nothing_owed = json.dumps({"generations": 0, "judge_calls": 0, "failed": {}})
    forged = {"checked-folder@1": {text_hash(old_folder_hash(run)): nothing_owed}}
    (run / "derived.json").write_text(json.dumps({"format": 1, "values": forged}))
    capsys.readouterr()
    assert main(["report", str(run)]) == 1  # calls pending: not final
    err = capsys.readouterr().err
    assert "3 calls not made yet (0 generations and 3 judge calls pending in all)" in err
    assert json.loads((run / "scores.json").read_text())["complete"] is False
    assert "**Incomplete run**" in (run / "report.md").read_text()
    result = le.open_run(run)
    assert (result.complete, result.pending) == (False, 3)
    assert le.leaderboard([run]).to_pandas()["complete"].tolist() == [False]


def test_values_derived_from_texts_are_not_read_from_the_folder(run):
    """HelloBench's word counts: a derived.json in the folder (a Hub copy's, a forged one) is never believed."""
    texts = [json.loads(line)["response"] for line in (run / "generations.jsonl").read_text().splitlines()]
    forged = {"words:nltk-punkt-treebank": {text_hash(text): 99999 for text in texts}}
    (run / "derived.json").write_text(json.dumps({"format": 1, "values": forged}))
    assert main(["score", str(run)]) == 0
    words = [row["words"] for row in json.loads((run / "scores.json").read_text())["rows"]]
    assert len(words) == 4 and all(0 < count < 5000 for count in words)


def test_an_edited_report_or_plot_keeping_its_mark_is_written_again(run):
    written = (run / "report.md").read_text(encoding="utf-8")
    plot = next(run.glob("*.png"))
    drawn = plot.read_bytes()
    edited = written.replace(f"**{headline(run)}**", "**99.99 [99.00, 100.00]**")
    assert edited != written and edited.splitlines()[-1] == written.splitlines()[-1]  # the mark kept
    (run / "report.md").write_text(edited, encoding="utf-8")
    assert main(["report", str(run)]) == 0
    assert (run / "report.md").read_text(encoding="utf-8") == written
    plot.write_bytes(drawn[:-16] + b"\0" * 16)  # a plot changed since report.md was written
    assert main(["report", str(run)]) == 0
    assert plot.read_bytes() == drawn and (run / "report.md").read_text(encoding="utf-8") == written


def other_code(monkeypatch, tmp_path: Path) -> None:
    """The code's identity as after an edit of the package: one more source file (its text: this test's own)."""
    extra = tmp_path / "edit.py"
    extra.write_text(f"EDITED_FOR = {str(tmp_path)!r}\n")
    files = identity_module.package_files
    monkeypatch.setattr(
        identity_module,
        "package_files",
        lambda package: (
            files(package) + ([("longform_eval.common/edit.py", extra)] if package.endswith("common") else [])
        ),
    )
    identity_module.code_identity.cache_clear()


def test_changed_code_makes_report_score_again(run, capsys, monkeypatch, tmp_path):
    before = json.loads((run / "scores.json").read_text())
    found = scoring.deviations
    monkeypatch.setattr(scoring, "deviations", lambda r: [*found(r), "a rule the edited code adds"])
    try:
        other_code(monkeypatch, tmp_path)
        capsys.readouterr()
        assert main(["report", str(run)]) == 0
        assert "a rule the edited code adds" in (run / "report.md").read_text()
        scores = json.loads((run / "scores.json").read_text())
        assert scores["deviations"] == [*before["deviations"], "a rule the edited code adds"]
        assert "scored again" in capsys.readouterr().err
        assert scores["inputs"] == records_hash(run) != before["inputs"]
    finally:
        monkeypatch.undo()
        identity_module.code_identity.cache_clear()


def test_changed_code_that_gives_the_same_figures_rewrites_no_scores(run, capsys, monkeypatch, tmp_path):
    stored = (run / "scores.json").read_bytes()
    computed = []
    found = scoring.scores_of
    monkeypatch.setattr(scoring, "scores_of", lambda r: computed.append(1) or found(r))
    monkeypatch.setattr("longform_eval.inference.runner.run.scores_of", scoring.scores_of)
    try:
        other_code(monkeypatch, tmp_path)
        assert main(["report", str(run)]) == 0 and main(["report", str(run)]) == 0
        assert len(computed) == 1  # computed again once for the new code, then kept by its content
        assert (run / "scores.json").read_bytes() == stored and STALE not in capsys.readouterr().err
    finally:
        monkeypatch.undo()
        identity_module.code_identity.cache_clear()


def test_a_baseline_run_is_part_of_what_a_pairwise_run_is_scored_from(finished, tmp_path):
    baseline = Path(shutil.copytree(finished, tmp_path / "baseline"))
    folder = Path(shutil.copytree(finished, tmp_path / "pairwise"))
    first = records_hash(folder, baseline)
    assert first != records_hash(folder)
    zero_first_verdict(baseline)
    assert records_hash(folder, baseline) == first  # its verdicts are not what a pairwise run reads of it
    rewrite_log(baseline / "generations.jsonl", lambda r: r | {"response": r["response"] + " more"})
    assert records_hash(folder, baseline) != first
