"""The Space's judge is built by the runner's own road: options checked as `run --judge-arg` checks them."""

from __future__ import annotations

import json

import pytest

from longform_eval.common.errors import ConfigError
from longform_eval.inference.cli import main
from longform_eval.spaces.judging import arena_judge, judge_options


@pytest.fixture
def replay_judge(tmp_path):
    path = tmp_path / "judge.jsonl"
    lines = [{"key": "original", "text": "Verdict: A"}, {"key": "swapped", "text": "Verdict: B"}]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return f"replay:{path}"


def test_judge_options_reach_the_backend_and_the_verdict_combines_both_orders(replay_judge):
    judge = arena_judge(replay_judge, {"delay": 0.0})
    verdict = judge.judge("q", "answer one", "answer two")
    assert verdict.original == "A" and verdict.swapped == "B" and verdict.flipped is False


@pytest.mark.parametrize(
    ("options", "subject", "detail"),
    [({"nope": 1}, "nope", "not an option of the 'replay' backend"), ({"delay": "soon"}, "delay='soon'", "number")],
)
def test_a_bad_judge_option_is_a_config_error_naming_the_setting(replay_judge, options, subject, detail):
    with pytest.raises(ConfigError) as caught:
        arena_judge(replay_judge, options)
    assert caught.value.field == "judge_args" and caught.value.subject == subject and detail in caught.value.detail


def test_an_unknown_judge_backend_is_a_config_error_naming_the_judge():
    with pytest.raises(ConfigError) as caught:
        arena_judge("nosuch:model")
    assert caught.value.field == "judge" and "unknown backend 'nosuch'" in str(caught.value)


def test_a_missing_replay_file_is_a_config_error_naming_the_judge(tmp_path):
    with pytest.raises(ConfigError) as caught:
        arena_judge(f"replay:{tmp_path / 'none.jsonl'}")
    assert caught.value.field == "judge" and caught.value.detail == "no such file of recorded completions"


def test_the_variable_takes_a_mapping_or_pairs():
    assert judge_options("{timeout: 60, max_retries: 2}") == {"timeout": 60, "max_retries": 2}
    assert judge_options("timeout=60 max_retries=2") == {"timeout": 60, "max_retries": 2}
    assert judge_options("  ") == {}
    with pytest.raises(ValueError, match="LONGFORM_EVAL_JUDGE_ARGS"):
        judge_options("[1, 2]")


def test_the_space_command_refuses_a_bad_judge_arg_in_one_line_before_starting(replay_judge, tmp_path, capsys):
    runs = tmp_path / "runs"
    runs.mkdir()
    db = tmp_path / "votes.sqlite"
    code = main(["space", "--runs", str(runs), "--db", str(db), "--judge", replay_judge, "--judge-arg", "nope=1"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1
    assert err[0].endswith("--judge-arg nope: not an option of the 'replay' backend; it takes delay"), err
    assert not db.exists()
