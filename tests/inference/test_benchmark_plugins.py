"""Benchmarks as plug-ins: one defined outside the package runs end to end; records are keyed by model and
judge; rows come from a dataset folder; old run folders fail clearly."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import datasets
import pytest
import yaml

from longform_eval.dataset_builder import build
from longform_eval.inference.cli import main

from .conftest import chat_run, write_replay
from .plugins.toy_benchmark import register

REPO = Path(__file__).resolve().parents[2]
ROWS = [
    {"id": "q1", "topic": "math", "question": "What is 2 + 2?"},
    {"id": "q2", "topic": "math", "question": "What is 3 * 3?"},
    {"id": "q3", "topic": "geo", "question": "What is the capital of France?"},
]


@pytest.fixture(scope="module")
def toy_dataset(tmp_path_factory) -> Path:
    """A Hub-style dataset folder (parquet + README `configs:`) with one config, `default`."""
    folder = tmp_path_factory.mktemp("toy_dataset")
    datasets.Dataset.from_list(ROWS).to_parquet(str(folder / "default.parquet"))
    configs = [{"config_name": "default", "data_files": [{"split": "test", "path": "default.parquet"}]}]
    (folder / "README.md").write_text(f"---\n{yaml.safe_dump({'configs': configs})}---\n\nToy questions.\n")
    return folder


@pytest.fixture(scope="module")
def toy_replays(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("toy_replays")
    return {
        "model": write_replay(folder / "model.jsonl", [("q1", "4"), ("q2", "6"), ("q3", "Paris")]),
        "judge_a": write_replay(folder / "a.jsonl", [("q1", "yes"), ("q2", "no"), ("q3", "yes")]),
        "judge_b": write_replay(folder / "b.jsonl", [("q1", "yes"), ("q2", "yes"), ("q3", "maybe")]),
    }


def toy_run(dataset: Path, replays: dict[str, Path], judge: str, out: Path, *extra: str) -> list[str]:
    return [
        "run",
        *("--benchmark", "toy", "--dataset", str(dataset)),
        *("--model", f"replay:{replays['model']}", "--judge", f"replay:{replays[judge]}"),
        *("--out", str(out)),
        *extra,
    ]


def jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_a_benchmark_from_outside_the_package_runs_generate_judge_score_report(toy_dataset, toy_replays, tmp_path):
    register()
    out = tmp_path / "toy"
    assert main(toy_run(toy_dataset, toy_replays, "judge_a", out, "--benchmark-arg", "suffix=Be brief.")) == 0
    scores = json.loads((out / "scores.json").read_text())
    assert scores["accuracy"] == pytest.approx(200 / 3) and scores["n_scored"] == 3 and scores["complete"]
    assert scores["deviations"] == [
        "judge model = verdicts recorded by a judge not named (--judge-name names it), replayed from "
        f"replay:{toy_replays['judge_a']} (paper: toy-judge)"
    ]
    config = yaml.safe_load((out / "config.yaml").read_text())
    assert config["benchmark_args"] == {"suffix": "Be brief."} and config["dataset"] == str(toy_dataset)
    assert "- **accuracy**: 66.67" in (out / "report.md").read_text()  # the generic presentation


def test_benchmark_args_are_typed_and_checked_before_anything_is_written(toy_dataset, toy_replays, tmp_path, capsys):
    register()
    out = tmp_path / "toy"
    assert main(toy_run(toy_dataset, toy_replays, "judge_a", out, "--benchmark-arg", "colour=red")) == 2
    assert main(toy_run(toy_dataset, toy_replays, "judge_a", out, "--benchmark-arg", f"suffix={'x' * 30}")) == 2
    err = capsys.readouterr().err
    assert "colour" in err and "suffix" in err and not out.exists()


def test_a_new_judge_with_force_makes_its_calls_and_keeps_the_old_records(toy_dataset, toy_replays, tmp_path, capsys):
    register()
    out = tmp_path / "toy"
    assert main(toy_run(toy_dataset, toy_replays, "judge_a", out)) == 0
    assert "model calls 3, judge calls 3" in capsys.readouterr().err
    assert main(toy_run(toy_dataset, toy_replays, "judge_b", out)) == 2  # a changed judge needs --force
    assert main(toy_run(toy_dataset, toy_replays, "judge_b", out, "--force")) == 0
    assert "model calls 0, judge calls 4" in capsys.readouterr().err.splitlines()[-1]  # q3's "maybe" is retried
    judges = [r["judge"] for r in jsonl(out / "judgements.jsonl")]
    assert (
        judges.count(f"replay:{toy_replays['judge_a']}") == 3 and judges.count(f"replay:{toy_replays['judge_b']}") == 3
    )
    scores = json.loads((out / "scores.json").read_text())
    assert scores["judge"] == f"replay:{toy_replays['judge_b']}" and scores["accuracy"] == 100.0
    assert (scores["n_scored"], scores["n_unscored"]) == (2, 1)
    assert main(toy_run(toy_dataset, toy_replays, "judge_a", out, "--force")) == 0  # back to A: nothing to redo
    assert "model calls 0, judge calls 0" in capsys.readouterr().err.splitlines()[-1]
    assert json.loads((out / "scores.json").read_text())["accuracy"] == pytest.approx(200 / 3)


def test_a_new_model_with_force_generates_again(toy_dataset, toy_replays, tmp_path, capsys):
    register()
    out = tmp_path / "toy"
    other = write_replay(tmp_path / "other.jsonl", [("q1", "5"), ("q2", "9"), ("q3", "Lyon")])
    assert main(toy_run(toy_dataset, toy_replays, "judge_a", out)) == 0
    args = toy_run(toy_dataset, {**toy_replays, "model": other}, "judge_a", out, "--force")
    assert main(args) == 0
    assert "model calls 3, judge calls 3" in capsys.readouterr().err.splitlines()[-1]
    models = {r["model"] for r in jsonl(out / "generations.jsonl")}
    assert models == {f"replay:{toy_replays['model']}", f"replay:{other}"}
    assert json.loads((out / "scores.json").read_text())["model"] == f"replay:{other}"


def test_a_missing_config_names_the_config_and_the_folder(toy_dataset, toy_replays, tmp_path, capsys):
    register()
    args = toy_run(toy_dataset, toy_replays, "judge_a", tmp_path / "toy")
    args[args.index("toy")] = "toy:hard"
    assert main(args) == 2
    err = capsys.readouterr().err
    assert f"dataset {toy_dataset}: no config 'hard'; it has default" in err


def test_an_entry_point_of_another_distribution_adds_a_benchmark(toy_dataset, toy_replays, tmp_path):
    site = tmp_path / "site"
    dist = site / "toy_plugin-0.1.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-plugin\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text(
        "[longform_eval.benchmarks]\ntoy_entry = inference.plugins.toy_benchmark:ToyEntryBenchmark\n"
    )
    args = toy_run(toy_dataset, toy_replays, "judge_a", tmp_path / "toy")
    args[args.index("toy")] = "toy_entry"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(REPO / "tests")])}
    done = subprocess.run(
        [sys.executable, "-m", "longform_eval.inference", *args],
        env=env,
        cwd=tmp_path,  # not the checkout, whose inference/ folder would shadow the tests' package
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads((tmp_path / "toy/scores.json").read_text())["benchmark"] == "toy_entry"


def test_hellobench_runs_on_a_built_dataset_folder(gpt4o_replays, tmp_path, capsys):
    generations, verdicts = gpt4o_replays
    folder = build("hellobench", out=tmp_path / "build/hellobench")
    out = tmp_path / "run"
    args = chat_run(2, f"replay:{generations}", f"replay:{verdicts}", str(out), "--dataset", str(folder))
    assert main(args) == 0
    scores = json.loads((out / "scores.json").read_text())
    assert scores["n_scored"] == 2 and scores["config"] == "chat"
    bad = chat_run(2, f"replay:{generations}", f"replay:{verdicts}", str(tmp_path / "r2"), "--dataset", str(tmp_path))
    assert main(bad) == 2
    assert f"{tmp_path}: not a dataset folder" in capsys.readouterr().err


def test_a_run_folder_of_an_older_schema_fails_with_its_version(gpt4o_replays, tmp_path, capsys):
    old = tmp_path / "old"
    old.mkdir()
    (old / "config.yaml").write_text("benchmark: hellobench\nselection: {config: chat}\npackage_version: 0.1.0\n")
    assert main(["score", str(old)]) == 2
    err = capsys.readouterr().err
    assert "schema version 1 (longform-eval 0.1.0)" in err and "this version reads schema 2" in err
