"""HelloBench runs take run.py's limit for the model they name, an explicit setting wins, and what differs from
upstream (a model it did not run, the judge's retry trigger) is listed in scores.json and report.md."""

from __future__ import annotations

import json
import shutil

import pytest
import yaml

from longform_eval.inference.benchmarks import create_benchmark
from longform_eval.inference.cli import main
from longform_eval.metric.helloeval.upstream_runs import judge_retry_deviation

from .conftest import chat_run


@pytest.mark.parametrize(
    "config,model,limit",
    [
        ("all", "gpt-4o-2024-08-06", 4096),
        ("chat", "/models/gemma-2-9b-it", 4096),
        ("all", "m-a-p/neo_7b_instruct_v0.1", 2048),
        ("all", "gpt-4o-mini", 16384),
        ("all", "some-new-model", 16384),
        ("all", None, 16384),
        ("length_constrained_2k", "gpt-4o", 16384),  # run.py's length-constrained runs: 16,384 / 24,000
        ("length_constrained_16k", "gpt-4o", 24000),
    ],
)
def test_paper_limit_follows_the_model(config, model, limit):
    assert create_benchmark("hellobench", config, model=model).paper_settings().generation.max_new_tokens == limit


def run_as(model_name: str, gpt4o_replays, tmp_path, *extra: str) -> tuple[dict, dict, str]:
    """A two-prompt chat run whose model replays GPT-4o's released responses under `model_name`."""
    generations, verdicts = gpt4o_replays
    model = shutil.copy(generations, tmp_path / f"{model_name}.jsonl")
    out = tmp_path / model_name
    assert main(chat_run(2, f"replay:{model}", f"replay:{verdicts}", str(out), *extra)) == 0
    config = yaml.safe_load((out / "config.yaml").read_text())
    return config, json.loads((out / "scores.json").read_text()), (out / "report.md").read_text()


def test_a_model_run_py_ran_gets_its_limit_and_no_line(gpt4o_replays, tmp_path):
    config, scores, report = run_as("gpt-4o-2024-08-06", gpt4o_replays, tmp_path)
    assert config["generation"]["max_new_tokens"] == 4096
    assert not [line for line in scores["deviations"] if "max_new_tokens" in line]
    assert judge_retry_deviation() not in scores["deviations"] and judge_retry_deviation() not in report  # replayed


def test_an_explicit_limit_wins_and_is_measured_against_run_py(gpt4o_replays, tmp_path):
    config, scores, _ = run_as("gpt-4o-2024-08-06", gpt4o_replays, tmp_path, "--max-new-tokens", "8192")
    assert config["generation"]["max_new_tokens"] == 8192
    assert "generation max_new_tokens = 8192 (paper: 4096)" in scores["deviations"]


def test_a_model_run_py_did_not_run_at_the_default_limit_deviates_in_nothing(gpt4o_replays, tmp_path):
    config, scores, report = run_as("my-model", gpt4o_replays, tmp_path, "--judge-attempts", "1")
    assert config["generation"]["max_new_tokens"] == 16384
    assert not [line for line in scores["deviations"] if "max_new_tokens" in line]
    (tmp_path / "other").mkdir()
    limited = ("--judge-attempts", "1", "--max-new-tokens", "512")
    _, other, _ = run_as("my-model", gpt4o_replays, tmp_path / "other", *limited)
    assert "generation max_new_tokens = 512 (paper: 16384)" in other["deviations"]
    assert judge_retry_deviation() not in scores["deviations"]  # one attempt: nothing is retried
