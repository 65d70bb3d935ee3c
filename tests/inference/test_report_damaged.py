"""A damaged file in a run folder (scores.json, a record, config.yaml, timings.json, comparisons.json) stops `report`
(and `score`) before it writes anything: one line naming the file (its line) and the field, exit status 2, and every
file of every given run byte-identical. A figure the toolkit could not compute is null and shown as `-`, never NaN."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable
from pathlib import Path

import huggingface_hub
import pytest
import yaml
from hub_standin import FAKE_TOKEN

from longform_eval.inference.cli import main

from .conftest import replayed_chat_run

Damage = Callable[[dict], None]


@pytest.fixture(scope="module")
def finished_template(gpt4o_replays, tmp_path_factory) -> Path:
    """A finished HelloBench run of 3 chat prompts (GPT-4o's released responses and verdicts), reported once."""
    return replayed_chat_run(gpt4o_replays, tmp_path_factory.mktemp("template") / "run", 3)


@pytest.fixture
def run(finished_template, tmp_path, capsys) -> Path:
    """A copy of the finished run, its own to damage."""
    capsys.readouterr()
    return Path(shutil.copytree(finished_template, tmp_path / "run"))


def checksums(root: Path) -> dict[str, str]:
    """Every file under `root` (nested ones too) by relative path, with the sha256 of its bytes."""
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest() for p in root.rglob("*") if p.is_file()
    }


def refused_untouched(capsys, root: Path, args: list[str], *named: str) -> str:
    """The command exits 2 with one line on stderr holding every `named` text, and no file under `root` changed,
    appeared or went away."""
    before = checksums(root)
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    for text in named:
        assert text in lines[0], lines[0]
    assert checksums(root) == before
    return lines[0]


def edit_scores(folder: Path, damage: Damage) -> Path:
    """scores.json with `damage` applied, written as Python's json writes it (NaN and Infinity as bare tokens)."""
    path = folder / "scores.json"
    scores = json.loads(path.read_text())
    damage(scores)
    path.write_text(json.dumps(scores, indent=2))
    return path


def setter(*where: str | int, value) -> Damage:
    def damage(scores: dict) -> None:
        target = scores
        for key in where[:-1]:
            target = target[key]
        target[where[-1]] = value

    return damage


# ----- scores.json ------------------------------------------------------------------------------------------------
def test_deviations_of_the_wrong_type_are_one_line_not_a_traceback(run, capsys):
    path = edit_scores(run, setter("deviations", value=5))
    refused_untouched(capsys, run, ["report", str(run)], f"{path}: field 'deviations': Input should be a valid list")


NAN, INF = float("nan"), float("inf")


@pytest.mark.parametrize(
    "where,value,token",
    [
        (("overall",), NAN, "NaN"),
        (("overall",), INF, "Infinity"),
        (("overall",), -INF, "-Infinity"),
        (("tasks", "chat", "score"), NAN, "NaN"),
        (("intervals", "overall", "low"), NAN, "NaN"),
        (("intervals", "overall", "high"), INF, "Infinity"),
        (("rows", 1, "row_score"), NAN, "NaN"),
        (("judge_sd",), NAN, "NaN"),
    ],
)
def test_a_figure_that_is_not_a_number_is_refused_naming_the_field(run, capsys, where, value, token):
    path = edit_scores(run, setter(*where, value=value))
    field = ".".join(str(part) for part in where)
    line = refused_untouched(capsys, run, ["report", str(run)], f"{path}: field '{field}': {token} is not a number")
    assert "nan [nan" not in line.lower()


def test_a_number_too_large_for_a_float_is_refused_too(run, capsys):
    path = run / "scores.json"
    text = path.read_text()
    overall = json.dumps(json.loads(text)["overall"])
    path.write_text(text.replace(f'"overall": {overall}', '"overall": 1e999', 1))
    refused_untouched(capsys, run, ["report", str(run)], f"{path}: field 'overall': Infinity is not a number")


def test_nan_bounds_with_a_figure_are_refused(run, capsys):
    bounds = {"low": NAN, "high": NAN, "se": NAN, "n": 3}
    path = edit_scores(
        run, lambda scores: scores.update(overall=NAN, intervals=scores["intervals"] | {"overall": bounds})
    )
    refused_untouched(capsys, run, ["report", str(run)], f"{path}: field 'overall': NaN is not a number")


def test_a_figure_the_toolkit_could_not_compute_is_null_and_shown_as_no_figure(run, capsys):
    edit_scores(run, lambda scores: scores.update(overall=None, intervals=scores["intervals"] | {"overall": None}))
    assert main(["report", str(run)]) == 0
    captured = capsys.readouterr()
    report = (run / "report.md").read_text()
    assert "Headline: **-**" in report
    assert "nan" not in report.lower() and "nan" not in captured.out.lower()


@pytest.mark.parametrize(
    "where,value,field,why",
    [
        (("n_samples",), "3", "n_samples", "Input should be a valid integer"),
        (("complete",), "yes", "complete", "Input should be a valid boolean"),
        (("judge",), 7, "judge", "Input should be a valid string"),
        (("parser_rescues",), ["lenient"], "parser_rescues", "Input should be a valid dictionary"),
        (("judge_samples",), 0, "judge_samples", "Input should be greater than or equal to 1"),
        (("intervals", "overall", "low"), "30", "intervals.overall.low", "Input should be a valid number"),
        (("intervals", "overall", "n"), True, "intervals.overall.n", "Input should be a valid integer"),
        (("variance_split",), 5, "variance_split", "Input should be a valid string"),
        (("tasks", "chat", "score"), "high", "tasks.chat.score", "Input should be a valid number"),
        (("tasks",), 5, "tasks", "Input should be a valid dictionary"),
        (
            ("subcategories", "report_write", "n_scored"),
            -1,
            "subcategories.report_write.n_scored",
            "Input should be greater than",
        ),
        (("unscored_reasons",), [], "unscored_reasons", "Input should be a valid dictionary"),
        (("rows", 0, "row_score"), "100", "rows.0.row_score", "Input should be a valid number"),
        (
            ("rows", 2, "subcategory"),
            "no_such",
            "rows.2.subcategory",
            "Value error, not a HelloBench subcategory, got 'no_such'",
        ),
        (("rows",), {"id": "chat_002"}, "rows", "Input should be a valid list"),
    ],
)
def test_a_field_of_the_wrong_type_is_one_line_naming_it(run, capsys, where, value, field, why):
    path = edit_scores(run, setter(*where, value=value))
    refused_untouched(capsys, run, ["report", str(run)], f"{path}: field '{field}': {why}")


def test_a_missing_field_is_named(run, capsys):
    path = edit_scores(run, lambda scores: scores["tasks"]["chat"].pop("n_scored"))
    refused_untouched(capsys, run, ["report", str(run)], f"{path}: field 'tasks.chat.n_scored': Field required")


@pytest.mark.parametrize(
    "field,value,why",
    [
        ("benchmark", "no_such_benchmark", "'no_such_benchmark', but config.yaml says 'hellobench'"),
        ("benchmark", "longgenbench", "'longgenbench', but config.yaml says 'hellobench'"),
        ("config", "no_such_config", "'no_such_config', but config.yaml says 'chat'"),
        ("config", "summarization", "'summarization', but config.yaml says 'chat'"),
    ],
)
def test_scores_of_another_benchmark_than_config_yaml_names_are_refused(run, capsys, field, value, why):
    path = edit_scores(run, setter(field, value=value))
    refused_untouched(capsys, run, ["report", str(run)], f"{path}: field '{field}'", why)


def test_a_scores_file_that_is_not_json_is_refused(run, capsys):
    path = run / "scores.json"
    path.write_text(path.read_text()[:-20])
    refused_untouched(capsys, run, ["report", str(run)], f"{path}: not valid JSON")


# ----- records and config.yaml ------------------------------------------------------------------------------------
def rewrite_records(path: Path, change: Callable[[list[dict]], None]) -> None:
    records = [json.loads(line) for line in path.read_text().splitlines()]
    change(records)
    path.write_text("".join(json.dumps(record) + "\n" for record in records))


@pytest.mark.parametrize(
    "log,line,field,value",
    [
        ("judgements.jsonl", 1, "attempts", "many"),
        ("judgements.jsonl", 3, "completions", "one"),
        ("generations.jsonl", 2, "response", None),
        ("generations.jsonl", 1, "truncated", "maybe"),
    ],
)
@pytest.mark.parametrize("command", ["report", "score"])
def test_a_record_of_the_wrong_type_is_refused_before_anything_is_written(
    run, capsys, log, line, field, value, command
):
    rewrite_records(run / log, lambda records: records[line - 1].update({field: value}))
    refused_untouched(capsys, run, [command, str(run)], f"{run / log}:{line}: ", f"field '{field}'")


def test_a_damaged_record_of_another_model_is_refused_too(run, capsys):
    """Records of a model the run no longer names are not read for the scores, but are checked all the same."""

    def add_other(records: list[dict]) -> None:
        records.append(records[0] | {"model": "replay:elsewhere", "attempts": "x"})

    rewrite_records(run / "generations.jsonl", add_other)
    for command in ("report", "score"):
        refused_untouched(capsys, run, [command, str(run)], f"{run / 'generations.jsonl'}:4: ", "field 'attempts'")


def edit_config(folder: Path, change: Callable[[dict], None]) -> Path:
    path = folder / "config.yaml"
    stored = yaml.safe_load(path.read_text())
    change(stored)
    path.write_text(yaml.safe_dump(stored, sort_keys=False))
    return path


@pytest.mark.parametrize("limit", [2, 4])
def test_a_changed_selection_in_config_yaml_is_refused_before_report_md_is_touched(run, capsys, limit):
    path = edit_config(run, lambda stored: stored["selection"].update(limit=limit))
    line = refused_untouched(capsys, run, ["report", str(run)], f"{path}: field 'dataset_hash'", "restore")
    assert "--force" not in line  # report has no such option


def test_a_config_yaml_field_of_the_wrong_type_is_refused(run, capsys):
    path = edit_config(run, lambda stored: stored.update(judge_attempts="abc"))
    refused_untouched(capsys, run, ["report", str(run)], f"{path}: field 'judge_attempts'")


# ----- timings.json -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text,named",
    [
        ('{"invocations": [{"started": 5}]}', "field 'invocations.0.started'"),
        ('{"invocations": 3}', "field 'invocations': Input should be a valid list"),
        ("[1, 2]", "Input should be a valid dictionary"),
        ("{", "not valid JSON"),
    ],
)
def test_a_damaged_timings_json_is_refused(run, capsys, text, named):
    (run / "timings.json").write_text(text)
    refused_untouched(capsys, run, ["report", str(run)], f"{run / 'timings.json'}: {named}")


def test_nan_seconds_in_timings_json_are_refused(run, capsys):
    path = run / "timings.json"
    timings = json.loads(path.read_text())
    timings["invocations"][0]["seconds"]["judge"] = NAN
    path.write_text(json.dumps(timings))
    refused_untouched(capsys, run, ["report", str(run)], f"{path}: field 'invocations.0.seconds.judge': NaN")


# ----- several runs: one damaged, nothing written for any ---------------------------------------------------------
def test_one_damaged_run_among_several_leaves_every_run_as_it_was(finished_template, tmp_path, capsys):
    good, bad = (Path(shutil.copytree(finished_template, tmp_path / name)) for name in ("good", "bad"))
    path = edit_scores(bad, setter("overall", value=NAN))
    for order in ([good, bad], [bad, good]):
        refused_untouched(
            capsys, tmp_path, ["report", *map(str, order), "--out", str(tmp_path)], f"{path}: field 'overall': NaN"
        )
    assert not (tmp_path / "comparisons.json").exists()
    shutil.copy(finished_template / "scores.json", path)  # repaired, the two are reported and compared
    assert main(["report", str(good), str(bad), "--out", str(tmp_path)]) == 0
    assert (tmp_path / "comparisons.json").is_file()


def test_a_damaged_comparisons_json_is_refused_before_any_report(finished_template, tmp_path, capsys):
    first, second = (Path(shutil.copytree(finished_template, tmp_path / name)) for name in ("a", "b"))
    (tmp_path / "comparisons.json").write_text('{"written_by": "longform-eval report", ')
    command = ["report", str(first), str(second), "--out", str(tmp_path)]
    refused_untouched(capsys, tmp_path, command, f"{tmp_path / 'comparisons.json'}")


# ----- a run on the Hub: its local copy is checked as any run folder ---------------------------------------------
def test_a_hub_run_with_a_damaged_scores_json_is_refused_and_its_copy_not_reported(
    hub, monkeypatch, finished_template, tmp_path, capsys
):
    for name in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HF_TOKEN", FAKE_TOKEN)
    hub.patch_client(monkeypatch)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path / "cache"))
    mine = Path(shutil.copytree(finished_template, tmp_path / "mine"))
    assert main(["push-run", str(mine), "--repo", "org/damaged"]) == 0
    damaged = edit_scores(mine, setter("overall", value=NAN))
    huggingface_hub.HfApi().upload_file(
        path_or_fileobj=damaged, path_in_repo="scores.json", repo_id="org/damaged", repo_type="dataset"
    )
    copy = tmp_path / "copy"
    capsys.readouterr()
    assert main(["report", "hf://datasets/org/damaged", "--out", str(copy)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count(": error:") == 1
    last = err.strip().splitlines()[-1]
    assert last.startswith("longform-eval report: error: ") and f"{copy / 'scores.json'}: field 'overall': NaN" in last
    for name in ("report.md", "score_per_task.png", "score_vs_words.png"):
        assert (copy / name).read_bytes() == (finished_template / name).read_bytes()  # as pushed, not rewritten


# ----- the undamaged copy is reported: the checks refuse only damage -----------------------------------------------
def test_an_undamaged_copy_is_reported_and_its_report_rewritten(run, capsys):
    (run / "report.md").write_text("stale\n")
    assert main(["report", str(run)]) == 0
    assert (run / "report.md").read_text().startswith("# hellobench:chat: replay:")
    assert main(["score", str(run)]) == 0


def test_a_scores_file_holding_a_row_twice_is_one_line_naming_the_file_row_and_sample(run, capsys, tmp_path):
    """Issue 46: a scores.json with duplicate rows gave an error naming no file."""
    path = edit_scores(run, lambda scores: scores["rows"].append(dict(scores["rows"][0])))
    sample = json.loads(path.read_text())["rows"][0]["id"]
    for command in (["report", str(run)], ["leaderboard", str(run), "--out", str(tmp_path / "board")]):
        refused_untouched(capsys, run, command, f"{path}: field 'rows' (row 3): sample {sample!r} a second time")
