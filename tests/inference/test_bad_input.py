"""Every bad input is one line naming the input and what is wrong, exit status 2, and (when the error comes before
any write) no run folder; a full disk is one line naming the file, loses nothing written, and leaves no `.lock`."""

from __future__ import annotations

import errno
import json
import os
import warnings
from pathlib import Path

import pytest
import yaml

from longform_eval.inference.cli import main
from longform_eval.inference.runner.lock import lock_run_folder, unlock_run_folder

from .conftest import chat_run

NO_SPACE = "No space left on device"


def refused(capsys, args: list[str], *named: str) -> str:
    """Run the command; it must exit 2 with one line on stderr that holds every `named` text, no traceback."""
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    for text in named:
        assert text in lines[0], lines[0]
    return lines[0]


def refused_after_progress(capsys, args: list[str], *named: str) -> str:
    """As `refused`, for a command that had started work: its progress lines come first, the error line last."""
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    last = err.strip().splitlines()[-1]
    assert err.count(": error:") == 1 and ": error:" in last, err
    for text in named:
        assert text in last, last
    return last


def lines_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture
def replay_run(gpt4o_replays, tmp_path):
    """`longform-eval run` arguments for 2 HelloBench chat rows with the released responses and verdicts."""
    generations, verdicts = gpt4o_replays
    out = tmp_path / "run"
    return out, chat_run(2, f"replay:{generations}", f"replay:{verdicts}", str(out))


@pytest.fixture
def finished_run(replay_run, capsys):
    out, args = replay_run
    assert main(args) == 0
    capsys.readouterr()
    return out


# ----- options refused by the parser's types ------------------------------------------------------------------
@pytest.mark.parametrize(
    "option,value,why",
    [
        ("--limit", "-5", "expected an integer in [1, "),
        ("--limit", "0", "expected an integer in [1, "),
        ("--per-group", "0", "expected an integer in [1, "),
        ("--max-new-tokens", "-1", "expected an integer in [1, "),
        ("--judge-max-new-tokens", "0", "expected an integer in [1, "),
        ("--judge-attempts", "0", "expected an integer in [1, "),
        ("--judge-samples", "0", "expected an integer in [1, "),
        ("--limit", "2.5", "expected an integer in [1, "),
        ("--temperature", "nan", "expected a finite number >= 0"),
        ("--temperature", "inf", "expected a finite number >= 0"),
        ("--temperature", "-0.5", "expected a finite number >= 0"),
        ("--judge-temperature", "nan", "expected a finite number >= 0"),
    ],
)
def test_numeric_options_out_of_range_are_refused_before_any_write(replay_run, capsys, option, value, why):
    out, args = replay_run
    line = refused(capsys, [*args, option, value], f"argument {option}", why, repr(value))
    assert line.startswith("longform-eval run: error:")
    assert not out.exists()


def test_judge_and_agreement_commands_use_the_same_types(finished_run, capsys):
    refused(capsys, ["judge", str(finished_run), "--judge-attempts", "0"], "argument --judge-attempts")
    refused(capsys, ["judge-agreement", "--judge", "local:default", "--limit", "-1"], "argument --limit")
    refused(capsys, ["serve", "local:default", "--port", "70000"], "argument --port", "[1, 65535]")
    refused(capsys, ["build", "longgenbench", "--generate", "--per-scenario", "0"], "argument --per-scenario")


def test_out_naming_an_existing_file_is_refused(replay_run, tmp_path, capsys):
    _, args = replay_run
    existing = tmp_path / "notes.txt"
    existing.write_text("mine\n")
    refused(capsys, [*args, "--out", str(existing)], "argument --out", f"{existing} is a file")
    assert existing.read_text() == "mine\n"


def test_an_unknown_option_is_one_line_too(replay_run, capsys):
    out, args = replay_run
    refused(capsys, [*args, "--no-such-option"], "unrecognized arguments: --no-such-option")
    assert not out.exists()


# ----- option files and KEY=VALUE options -------------------------------------------------------------------
@pytest.mark.parametrize(
    "text,why",
    [
        ("max_attempts: [\n", "not valid YAML (line 2, column 1)"),
        ("- base_url\n- timeout\n", "expected a mapping of options (KEY: VALUE), got a list"),
        ("just words\n", "expected a mapping of options (KEY: VALUE), got a string"),
    ],
)
@pytest.mark.parametrize("role", ["model", "judge"])
def test_a_bad_backend_config_file_names_the_file(replay_run, tmp_path, capsys, text, why, role):
    out, args = replay_run
    config = tmp_path / "cfg.yaml"
    config.write_text(text)
    refused(capsys, [*args, f"--{role}-config", str(config)], f"--{role}-config {config}", why)
    assert not out.exists()


@pytest.mark.parametrize(
    "option,named",
    [
        (("--judge", "openai:judge", "--judge-arg", "max_in_flight=-1"), "--judge-arg max_in_flight=-1"),
        (("--model", "openai:m", "--model-arg", "max_in_flight=-1"), "--model-arg max_in_flight=-1"),
        (("--model", "openai:m", "--model-arg", "timeout=.nan"), "--model-arg timeout=nan"),
        (("--model", "openai:m", "--model-arg", "max_attempts=yes"), "--model-arg max_attempts=True"),
        (("--model", "hf:gpt2", "--model-arg", "engine=fast"), "--model-arg engine='fast'"),
        (("--model", "hf:gpt2", "--model-arg", "batch_size=0"), "--model-arg batch_size=0"),
        (("--model", "local:default", "--model-arg", "threads=two"), "--model-arg threads='two'"),
        (("--model-arg", "delay=-1"), "--model-arg delay=-1"),
        (("--model-arg", "delay=["), "--model-arg 'delay=[': the value is not valid YAML"),
    ],
)
def test_backend_options_of_the_wrong_type_or_range_are_refused_before_config_yaml(replay_run, capsys, option, named):
    out, args = replay_run
    refused(capsys, [*args, *option], named)
    assert not out.exists()


def test_a_backend_config_file_is_checked_like_the_options(replay_run, tmp_path, capsys):
    out, args = replay_run
    config = tmp_path / "judge.yaml"
    config.write_text("max_in_flight: 4\ntimeout: -3\n")
    command = [*args, "--judge", "openai:judge", "--judge-config", str(config)]
    refused(capsys, command, f"--judge-config {config}: timeout=-3", "greater than 0")
    refused(capsys, [*args, "--model-config", str(config.with_name("missing.yaml"))], "missing.yaml: No such file")
    assert not out.exists()


@pytest.mark.parametrize(
    "value,why",
    [
        ("per_scenario=abc", "--benchmark-arg per_scenario='abc': longgenbench: Input should be a valid integer"),
        ("per_scenario=0", "--benchmark-arg per_scenario=0: longgenbench: Input should be greater than 0"),
        ("no_such=1", "--benchmark-arg no_such: not an option of longgenbench; its options: seed, per_scenario"),
        ("seed=[", "--benchmark-arg 'seed=[': the value is not valid YAML"),
        ("seed", "--benchmark-arg 'seed': expected KEY=VALUE"),
    ],
)
def test_a_bad_benchmark_arg_is_one_line(gpt4o_replays, tmp_path, capsys, value, why):
    generations, _ = gpt4o_replays
    out = tmp_path / "run"
    args = ["run", "--benchmark", "longgenbench:generated_short", "--model", f"replay:{generations}", "--out", str(out)]
    refused(capsys, [*args, "--benchmark-arg", value], why)
    assert not out.exists()


# ----- selections that select nothing -----------------------------------------------------------------------
def test_an_unknown_subcategory_lists_the_groups(replay_run, capsys):
    out, args = replay_run
    line = refused(capsys, [*args, "--subcategory", "nosuch"], "--subcategory nosuch", "no hellobench row")
    assert "chat" in line.split("choose from", 1)[1]  # the groups it has, e.g. the task itself
    assert not out.exists()


def test_one_unknown_subcategory_among_known_ones_is_refused(replay_run, capsys):
    out, args = replay_run
    refused(capsys, [*args, "--subcategory", "chat", "--subcategory", "nosuch"], "--subcategory nosuch")
    assert not out.exists()


# ----- records that are not valid -----------------------------------------------------------------------------
def test_a_generation_record_with_a_null_response_names_the_file_line_and_field(finished_run, capsys):
    path = finished_run / "generations.jsonl"
    records = lines_of(path)
    records[1]["response"] = None
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    refused(capsys, ["score", str(finished_run)], f"{path}:2:", "field 'response'", "valid string")
    assert not (finished_run / ".lock").exists()


def test_a_judgement_record_of_the_wrong_type_names_the_file_line_and_field(finished_run, capsys):
    path = finished_run / "judgements.jsonl"
    records = lines_of(path)
    records[0]["attempts"] = "many"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    refused(capsys, ["score", str(finished_run)], f"{path}:1:", "field 'attempts'")


# ----- a full disk ----------------------------------------------------------------------------------------------
def written_files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}


def fill_disk_on_write(monkeypatch) -> None:
    """Every `Path.write_bytes` (the atomic writer's) writes 4 KiB and then finds the disk full."""

    def disk_full(self, data):
        with self.open("wb") as handle:
            handle.write(data[:4096])
        raise OSError(errno.ENOSPC, NO_SPACE)

    monkeypatch.setattr(Path, "write_bytes", disk_full)


@pytest.mark.parametrize("command", ["score", "report"])
def test_a_full_disk_is_one_line_naming_the_file_and_loses_nothing(finished_run, capsys, monkeypatch, command):
    before = written_files(finished_run)
    assert ".lock" not in before  # a finished command leaves no lock file
    fill_disk_on_write(monkeypatch)
    line = refused(capsys, [command, str(finished_run)], NO_SPACE, str(finished_run))
    monkeypatch.undo()
    assert written_files(finished_run) == before  # no part-written file, no temporary, no .lock
    assert line.split(": error: ", 1)[1].split(":")[0].startswith(str(finished_run))


def test_a_disk_filling_while_generating_keeps_every_record_and_resumes(gpt4o_replays, tmp_path, capsys, monkeypatch):
    generations, _ = gpt4o_replays
    out = tmp_path / "run"
    args = ["generate", "--benchmark", "hellobench:chat", "--limit", "4", "--model", f"replay:{generations}"]
    args += ["--out", str(out)]
    real_fsync = os.fsync
    synced: list[int] = []

    def full_after_two_records(fd: int) -> None:
        if os.readlink(f"/proc/self/fd/{fd}").endswith("generations.jsonl"):
            synced.append(fd)
            if len(synced) > 2:
                raise OSError(errno.ENOSPC, NO_SPACE)
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", full_after_two_records)
    refused_after_progress(capsys, args, f"{out / 'generations.jsonl'}: {NO_SPACE}")
    monkeypatch.undo()
    kept = lines_of(out / "generations.jsonl")
    assert len(kept) >= 2 and not (out / ".lock").exists()
    assert main(args) == 0
    ids = [r["sample_id"] for r in lines_of(out / "generations.jsonl")]
    assert len(ids) == 4 == len(set(ids)) and ids[: len(kept)] == [r["sample_id"] for r in kept]


def test_a_full_disk_when_taking_the_lock_leaves_no_lock_file(tmp_path, monkeypatch):
    def disk_full(fd, length):
        raise OSError(errno.ENOSPC, NO_SPACE)

    monkeypatch.setattr(os, "ftruncate", disk_full)
    with pytest.raises(OSError, match=f"{NO_SPACE}.*\\.lock"):
        lock_run_folder(tmp_path)
    monkeypatch.undo()
    assert not (tmp_path / ".lock").exists()
    held = lock_run_folder(tmp_path)  # and the folder can be locked again
    assert held.exists()
    unlock_run_folder(held)
    assert not held.exists()


# ----- tracebacks only with --debug -----------------------------------------------------------------------------
def test_debug_shows_the_traceback_of_a_user_error(tmp_path, capsys):
    missing = tmp_path / "missing"
    refused(capsys, ["score", str(missing)], "not a run folder")
    assert main(["--debug", "score", str(missing)]) == 2
    err = capsys.readouterr().err
    assert "Traceback (most recent call last)" in err
    assert err.strip().splitlines()[-1].startswith("longform-eval score: error:")


# ----- a folder of someone else's files is never written into -------------------------------------------------
def user_folder(path: Path) -> dict[str, bytes]:
    """A folder of the user's own files (named as a run's would be), and its bytes."""
    path.mkdir()
    (path / "report.md").write_text("my notes\n")
    (path / "score_per_task.png").write_bytes(b"my picture")
    return written_files(path)


@pytest.mark.parametrize("command", ["run", "generate"])
def test_a_folder_of_other_files_is_refused_and_left_as_it_is(replay_run, capsys, command):
    out, args = replay_run
    before = user_folder(out)
    refused(capsys, [command, *args[1:]], f"{out}: not empty and not a run folder (no config.yaml", "another --out")
    assert written_files(out) == before and sorted(os.listdir(out)) == sorted(before)
    for name in before:
        (out / name).unlink()
    assert main([command, *args[1:]]) == 0  # an empty folder is written
    assert (out / "config.yaml").is_file()


def test_import_generations_into_a_folder_of_other_files_is_refused(gpt4o_replays, tmp_path, capsys):
    generations, _ = gpt4o_replays
    chat_id = next(r["key"] for r in lines_of(generations) if r["key"].startswith("chat_"))
    source = tmp_path / "responses.jsonl"
    source.write_text(json.dumps({"id": chat_id, "response": "An answer."}) + "\n")
    out = tmp_path / "mine"
    before = user_folder(out)
    command = ["import-generations", str(source), "--benchmark", "hellobench:chat", "--out", str(out)]
    refused(capsys, command, f"{out}: not empty and not a run folder")
    assert written_files(out) == before and sorted(os.listdir(out)) == sorted(before)


def test_judge_agreement_into_a_folder_of_other_files_is_refused(tmp_path, capsys):
    judge = tmp_path / "judge.jsonl"
    judge.write_text("")
    out = tmp_path / "mine"
    before = user_folder(out)
    command = ["judge-agreement", "--judge", f"replay:{judge}", "--limit", "2", "--out", str(out)]
    refused(capsys, command, f"{out}: not empty and not a judge-agreement folder (no judgements.jsonl")
    assert written_files(out) == before and sorted(os.listdir(out)) == sorted(before)


def test_a_run_on_a_path_that_is_a_file_is_refused(finished_run, tmp_path):
    from longform_eval.inference.runner import Run
    from longform_eval.inference.runner.folder import RunFolderError

    config = Run.open(finished_run, read_only=True).config
    notes = tmp_path / "notes.txt"
    notes.write_text("mine\n")
    with pytest.raises(RunFolderError, match=f"{notes}: is a file, not a run folder"):
        Run.create(notes, config)
    assert notes.read_text() == "mine\n"


# ----- damaged run-folder files -------------------------------------------------------------------------------
def damaged_config(folder: Path, damage: str) -> Path:
    path = folder / "config.yaml"
    if damage == "yaml":
        path.write_text(path.read_text() + "broken: [\n")
    elif damage == "list":
        path.write_text("- benchmark\n- model\n")
    else:
        stored = yaml.safe_load(path.read_text())
        path.write_text(yaml.safe_dump(stored | {"judge_attempts": "abc"}, sort_keys=False))
    return path


@pytest.mark.parametrize(
    "damage,why",
    [
        ("yaml", "not valid YAML (line"),
        ("list", "expected a mapping of settings, got a list"),
        ("field", "field 'judge_attempts': Input should be a valid integer"),
    ],
)
def test_a_damaged_config_yaml_is_one_line_naming_the_file(finished_run, replay_run, capsys, damage, why):
    path = damaged_config(finished_run, damage)
    _, run_args = replay_run
    for argv in (["score", str(finished_run)], ["judge", str(finished_run)], run_args):
        refused(capsys, argv, f"{path}: {why}")


# ----- import-generations: a bad record is an error, nothing imported ---------------------------------------
@pytest.mark.parametrize(
    "record,field,got",
    [({"response": None}, "response", "expected text, got null"), ({"id": 7}, "id", "expected text, got 7")],
)
def test_import_of_a_bad_record_names_file_line_and_field_and_writes_nothing(
    gpt4o_replays, tmp_path, capsys, record, field, got
):
    generations, _ = gpt4o_replays
    first, second = [r["key"] for r in lines_of(generations) if r["key"].startswith("chat_")][:2]
    source = tmp_path / "responses.jsonl"
    good = {"id": first, "response": "An answer."}
    source.write_text(json.dumps(good) + "\n" + json.dumps({"id": second, "response": "x"} | record) + "\n")
    out = tmp_path / "imported"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning either: the record is an error
        command = ["import-generations", str(source), "--benchmark", "hellobench:chat", "--out", str(out)]
        refused(capsys, command, f"{source}:2: field '{field}': {got}")
    assert not out.exists()


# ----- fit-weights: names printed as text, a folder named as one ----------------------------------------------
def test_fit_weights_prints_subcategory_names_as_text(tmp_path, capsys):
    path = tmp_path / "annotations.jsonl"
    levels = (0, 0.25, 0.5, 0.75, 1)
    records = [
        {
            "row_id": f"r{i}",
            "subcategory": "news[/b]",
            "checklist_scores": [levels[i % 5], levels[(i * 2) % 5]],
            "overall_score": round(10 * (0.6 * levels[i % 5] + 0.4 * levels[(i * 2) % 5]), 2),
            "annotator": "a",
        }
        for i in range(12)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert main(["fit-weights", str(path), "--out", str(tmp_path / "weights.txt")]) == 0
    captured = capsys.readouterr()
    assert "news[/b]" in captured.out and "Traceback" not in captured.err


def test_fit_weights_on_a_folder_says_it_is_a_folder(tmp_path, capsys):
    refused(capsys, ["fit-weights", str(tmp_path)], f"{tmp_path}: is a folder, expected a file")


@pytest.mark.parametrize("text", ["[1, 2]\n", '{"a": 1}\n'])
def test_a_scores_file_that_is_not_one_is_named(finished_run, capsys, text):
    path = finished_run / "scores.json"
    path.write_text(text)
    refused(capsys, ["report", str(finished_run)], f"{path}: not a scores file")
    assert path.read_text() == text
