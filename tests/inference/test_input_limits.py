"""Issue 28 F3, F5, F6, L4, L5: no log is written through a link, no number or settings file exhausts memory or
blocks, no port is 0. Each is one line, exit 2, with nothing written or changed (checksums before and after)."""

from __future__ import annotations

import hashlib
import os
import signal
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import yaml

from longform_eval.dataset_builder.longgenbench_generator import PER_SCENARIO, generate_items
from longform_eval.inference.cli import main
from longform_eval.inference.cli.main import parser
from longform_eval.inference.limits import BACKEND_COUNT, JUDGE_ATTEMPTS, JUDGE_SAMPLES, NEW_TOKENS, ROWS
from longform_eval.inference.runner.records import RecordLog, UnsafeLogFile
from longform_eval.inference.yaml_files import MAX_SETTINGS_BYTES, MAX_YAML_VALUES, load_yaml

from .conftest import chat_run
from .test_bad_input import refused

HUGE = "99999999999999999999999"  # 23 digits
LOGS = ("generations.jsonl", "judgements.jsonl", "failures.jsonl")


class TooSlow(BaseException):
    """Not an Exception: the command under test must not catch it."""


@contextmanager
def within(seconds: int) -> Iterator[None]:
    """Fail a block that blocks (a FIFO opened for reading) or runs long (an alias bomb expanded)."""

    def late(*_):
        raise TooSlow(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, late)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def tree(folder: Path) -> dict[str, str]:
    """Every entry under `folder`: a file's sha256, a link's target, else its kind (links are not followed)."""
    found = {}
    for path in sorted(folder.rglob("*")):
        info = path.lstat()
        if stat.S_ISLNK(info.st_mode):
            found[str(path.relative_to(folder))] = f"-> {os.readlink(path)}"
        elif stat.S_ISREG(info.st_mode):
            found[str(path.relative_to(folder))] = hashlib.sha256(path.read_bytes()).hexdigest()
        else:
            found[str(path.relative_to(folder))] = stat.filemode(info.st_mode)[0]
    return found


@pytest.fixture
def replay_args(gpt4o_replays, tmp_path) -> tuple[Path, list[str]]:
    """`run` arguments for 2 HelloBench chat rows answered and judged by released GPT-4o records, and its --out."""
    generations, verdicts = gpt4o_replays
    out = tmp_path / "run"
    return out, chat_run(2, f"replay:{generations}", f"replay:{verdicts}", str(out))


@pytest.fixture
def finished(replay_args, capsys) -> tuple[Path, list[str]]:
    out, args = replay_args
    assert main(args) == 0
    capsys.readouterr()
    return out, args


# ----- F3: an append-only log is the folder's own file -----------------------------------------------------------
def put_in_place(log: Path, kind: str, victim: Path) -> None:
    log.unlink(missing_ok=True)
    if kind == "symlink":
        log.symlink_to(victim)
    elif kind == "hard link":
        os.link(victim, log)
    elif kind == "fifo":
        os.mkfifo(log)
    else:
        log.mkdir()


@pytest.mark.parametrize(
    "kind,why",
    [
        ("symlink", "is a symlink"),
        ("hard link", "has other hard links"),
        ("fifo", "is not a regular file"),
        ("folder", "is not a regular file"),
    ],
)
@pytest.mark.parametrize("name", LOGS)
def test_a_log_that_is_not_the_folders_own_file_is_refused_and_nothing_is_written(
    finished, tmp_path, capsys, name, kind, why
):
    out, args = finished
    # someone's file holding only the first record: without the guard, a rerun appends the missing ones to it
    victim = tmp_path / "victim.jsonl"
    victim.write_bytes((out / (name if name != "failures.jsonl" else LOGS[0])).read_bytes().split(b"\n")[0] + b"\n")
    put_in_place(out / name, kind, victim)
    before = tree(tmp_path)
    for argv in (args, ["judge", str(out)], ["score", str(out)]):
        with within(60):
            refused(capsys, argv, f"{out / name} {why}", "a log file of its own")
        assert tree(tmp_path) == before  # the victim, the run folder and its config.yaml as they were; no .lock


def test_appending_never_goes_through_a_link_made_after_the_folder_was_checked(tmp_path):
    victim = tmp_path / "victim.jsonl"
    victim.write_text('{"key": "a"}\n')
    (tmp_path / "log.jsonl").symlink_to(victim)
    with pytest.raises(UnsafeLogFile, match="log.jsonl is a symlink"):
        RecordLog(tmp_path / "log.jsonl", ("key",)).append({"key": "b"})
    (tmp_path / "log.jsonl").unlink()
    os.link(victim, tmp_path / "log.jsonl")
    with pytest.raises(UnsafeLogFile, match="log.jsonl has other hard links"):
        RecordLog(tmp_path / "log.jsonl", ("key",)).append({"key": "b"})
    assert victim.read_text() == '{"key": "a"}\n'


def test_a_log_is_read_through_a_link_but_a_fifo_is_refused_without_blocking(tmp_path):
    """A run in the Hugging Face cache is a folder of links: reading follows them; a FIFO would block a reader."""
    target = tmp_path / "blob"
    target.write_text('{"key": "a"}\n{"key": "b"}\n{"key": "c"')  # a torn last line is still skipped
    (tmp_path / "linked.jsonl").symlink_to(target)
    assert [r["key"] for r in RecordLog(tmp_path / "linked.jsonl", ("key",)).records()] == ["a", "b"]
    os.mkfifo(tmp_path / "fifo.jsonl")
    with within(10), pytest.raises(UnsafeLogFile, match="fifo.jsonl is not a regular file"):
        list(RecordLog(tmp_path / "fifo.jsonl", ("key",)).records())


def test_appending_to_an_own_log_still_drops_a_torn_tail(tmp_path):
    log = tmp_path / "log.jsonl"
    log.write_text('{"key": "a"}\n{"key": "b"')
    RecordLog(log, ("key",)).append({"key": "c"})
    assert log.read_text() == '{"key": "a"}\n{"key": "c"}\n'


# ----- F5, F6 and every other count: a ceiling, with its reason, checked before anything is written ------------
@pytest.mark.parametrize("value", ["100000000", HUGE])
def test_judge_samples_past_the_ceiling_are_refused_before_anything_is_written(replay_args, capsys, value):
    out, args = replay_args
    refused(
        capsys,
        [*args, "--judge-temperature", "0.7", "--judge-samples", value],
        "argument --judge-samples",
        "[1, 100]",
        JUDGE_SAMPLES.why,
    )
    assert not out.exists()


def test_judge_samples_past_the_ceiling_leave_a_finished_run_as_it_is(finished, capsys):
    out, args = finished
    before = tree(out)
    refused(capsys, ["judge", str(out), "--judge-temperature", "0.7", "--judge-samples", "100000000"], "[1, 100]")
    refused(capsys, [*args, "--judge-samples", HUGE], "argument --judge-samples")
    assert tree(out) == before


@pytest.mark.parametrize(
    "field,value,ceiling",
    [("judge_samples", 100000000, JUDGE_SAMPLES), ("judge_attempts", int(HUGE), JUDGE_ATTEMPTS)],
)
def test_a_config_yaml_past_a_ceiling_is_refused_naming_the_field(finished, capsys, field, value, ceiling):
    out, _ = finished
    config = out / "config.yaml"
    config.write_text(yaml.safe_dump(yaml.safe_load(config.read_text()) | {field: value}, sort_keys=False))
    before = tree(out)
    refused(capsys, ["score", str(out)], f"{config}: field '{field}'", f"at most {ceiling.maximum}", ceiling.why)
    assert tree(out) == before


def test_per_scenario_past_the_ceiling_is_refused_by_build(tmp_path, capsys):
    out = tmp_path / "build"
    command = ["build", "longgenbench", "--generate", "--per-scenario", HUGE, "--out", str(out)]
    refused(capsys, command, "argument --per-scenario", "[1, 10000]", PER_SCENARIO.why)
    assert not out.exists()
    with pytest.raises(ValueError, match=f"at most {PER_SCENARIO.maximum}"):
        generate_items("short", seed=0, per_scenario=int(HUGE))


@pytest.mark.parametrize("value", [HUGE, str(PER_SCENARIO.maximum + 1)])
def test_per_scenario_benchmark_arg_past_the_ceiling_is_one_line(gpt4o_replays, tmp_path, capsys, value):
    generations, _ = gpt4o_replays
    out = tmp_path / "run"
    args = ["run", "--benchmark", "longgenbench:generated_short", "--model", f"replay:{generations}", "--out", str(out)]
    line = refused(capsys, [*args, "--benchmark-arg", f"per_scenario={value}"], "--benchmark-arg per_scenario=")
    assert f"longgenbench: at most {PER_SCENARIO.maximum} ({PER_SCENARIO.why}), got {value}" in line
    assert not out.exists()


COUNTS = [
    (["run"], "--limit", ROWS),
    (["run"], "--per-group", ROWS),
    (["generate", "--out", "x"], "--max-new-tokens", NEW_TOKENS),
    (["run"], "--judge-max-new-tokens", NEW_TOKENS),
    (["run"], "--judge-attempts", JUDGE_ATTEMPTS),
    (["judge", "x"], "--judge-samples", JUDGE_SAMPLES),
    (["judge-agreement"], "--limit", ROWS),
    (["judge-agreement"], "--judge-max-new-tokens", NEW_TOKENS),
    (["judge-agreement"], "--judge-attempts", JUDGE_ATTEMPTS),
    (["build", "longgenbench"], "--per-scenario", PER_SCENARIO),
]


@pytest.mark.parametrize("command,option,ceiling", COUNTS, ids=[f"{c[0]} {o}" for c, o, _ in COUNTS])
def test_every_count_takes_its_ceiling_and_refuses_one_more_with_the_reason(
    tmp_path, monkeypatch, capsys, command, option, ceiling
):
    monkeypatch.chdir(tmp_path)
    parsed = parser().parse_args([*command, option, str(ceiling.maximum)])
    assert getattr(parsed, option.removeprefix("--").replace("-", "_")) == ceiling.maximum
    refused(capsys, [*command, option, str(ceiling.maximum + 1)], f"argument {option}", ceiling.why)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("value", ["1e-300", "0"])
def test_a_difference_to_detect_too_small_to_plan_for_is_refused(finished, tmp_path, capsys, value):
    """--detect 1e-300 made the plan's prompt count overflow a float (an OverflowError traceback)."""
    reference, args = finished
    out = tmp_path / "plan"
    command = [*args[:-1], str(out), "--dry-run", "--power-reference", str(reference), "--detect", value]
    refused(capsys, command, "argument --detect", "expected a number >= 1e-09", "below any figure's precision")
    assert not out.exists()


@pytest.mark.parametrize("option", ["max_in_flight", "max_attempts"])
def test_a_backend_count_past_32_bits_is_refused_before_config_yaml(replay_args, capsys, option):
    out, args = replay_args
    value = BACKEND_COUNT.maximum + 1
    command = [*args, "--model", "openai:m", "--model-arg", f"{option}={value}"]
    refused(capsys, command, f"--model-arg {option}={value}", BACKEND_COUNT.why)
    assert not out.exists()


# ----- L4: a settings file is read only if it is a small regular file, and parsed with a bounded alias expansion -
def alias_bomb(levels: int = 9) -> str:
    """Nine anchors of nine aliases each: nine to the ninth (387 million) values once expanded, in 400 bytes."""
    lines = ["l0: &l0 [x, x, x, x, x, x, x, x, x]"]
    lines += [f"l{n}: &l{n} [{', '.join([f'*l{n - 1}'] * 9)}]" for n in range(1, levels)]
    return "\n".join(lines) + "\n"


def settings_file(tmp_path: Path, kind: str) -> Path:
    path = tmp_path / f"{kind}.yaml"
    if kind == "bomb":
        path.write_text(alias_bomb())
    elif kind == "recursive":
        path.write_text("threads: &a [1, *a]\n")
    elif kind == "deep":
        path.write_text("threads: " + "[" * 50_000 + "]" * 50_000 + "\n")
    elif kind == "large":
        path.write_text("threads: 2\n" + "#" * MAX_SETTINGS_BYTES + "\n")
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    else:
        return Path("/dev/zero")
    return path


@pytest.mark.parametrize(
    "kind,why",
    [
        ("bomb", f"refused YAML: holds more than {MAX_YAML_VALUES} values once its aliases"),
        ("recursive", "refused YAML: an alias refers to a value that holds it (line 1)"),
        ("deep", "refused YAML: nested too deeply"),
        ("large", f"larger than {MAX_SETTINGS_BYTES} bytes"),
        ("fifo", "is not a regular file (a FIFO, a device or a socket)"),
        ("zero", "is not a regular file (a FIFO, a device or a socket)"),
        ("folder", "is a folder, expected a YAML file"),
    ],
)
@pytest.mark.parametrize("role", ["model", "judge"])
def test_a_settings_file_that_would_exhaust_memory_or_block_is_refused_at_once(
    replay_args, tmp_path, capsys, role, kind, why
):
    out, args = replay_args
    path = settings_file(tmp_path, kind)
    with within(20):
        refused(capsys, [*args, f"--{role}-config", str(path)], f"--{role}-config {path}: {why}")
    assert not out.exists()


def test_an_alias_bomb_in_a_key_value_option_is_refused_at_once(replay_args, capsys):
    out, args = replay_args
    bomb = "[" + ", ".join(line.split(": ", 1)[1] for line in alias_bomb().splitlines()) + "]"
    with within(20):
        refused(capsys, [*args, "--model-arg", f"delay={bomb}"], "--model-arg 'delay': the value is refused")
    assert not out.exists()


@pytest.mark.parametrize("kind", ["bomb", "large"])
def test_a_config_yaml_that_would_exhaust_memory_is_refused_naming_it(finished, tmp_path, capsys, kind):
    out, _ = finished
    config = out / "config.yaml"
    config.write_bytes(settings_file(tmp_path, kind).read_bytes())
    before = tree(out)
    with within(20):
        refused(capsys, ["score", str(out)], f"{config}: ")
    assert tree(out) == before


def test_aliases_and_merge_keys_of_an_ordinary_size_still_load():
    loaded = load_yaml("base: &b {timeout: 30}\nmodel:\n  <<: *b\n  max_in_flight: 4\nother: *b\n")
    assert loaded == {"base": {"timeout": 30}, "model": {"timeout": 30, "max_in_flight": 4}, "other": {"timeout": 30}}


# ----- L5: a port is 1-65535 ----------------------------------------------------------------------------------
@pytest.mark.parametrize("value", ["0", "65536", "-1"])
@pytest.mark.parametrize("command", [["space"], ["serve", "local:default"]])
def test_a_port_outside_1_to_65535_is_refused_before_anything_starts(tmp_path, monkeypatch, capsys, command, value):
    monkeypatch.chdir(tmp_path)  # the Space would make votes.sqlite here
    refused(capsys, [*command, "--port", value], "argument --port", "expected an integer in [1, 65535]")
    assert list(tmp_path.iterdir()) == []
    assert parser().parse_args([*command, "--port", "65535"]).port == 65535
