"""`longform-eval run` with `vllm:` as model and judge: constrained judging under each benchmark's schema (on the
session's engine), and a run killed with SIGKILL, resumed, then rerun (subprocesses, each loading its own engine)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from tiny_qwen import engine_args

from longform_eval.inference.cli import main

pytestmark = [pytest.mark.vllm, pytest.mark.slow]

BENCHMARKS = {  # one of each judge schema: HelloEval's checklist list, LongBench-Write's dimensions, a pairwise label
    "hellobench": ["--benchmark", "hellobench:chat"],
    "longbench_write": ["--benchmark", "longbench_write"],
    "pairwise": ["--benchmark", "tencentllmeval:en", "--baseline", "reference"],
}


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def use_session_engine(monkeypatch, engine) -> list[tuple[dict, str]]:
    """The run command gets the session's engine for its `vllm:` specs; returns the (schema, reply) of each
    constrained call as it is made."""
    from longform_eval.inference.backends import shared

    constrained: list[tuple[dict, str]] = []

    class SessionEngine:
        name = engine.name

        def generate(self, requests, config, on_result=None):
            schemas = {r.key: r.json_schema for r in requests}
            results = engine.generate(requests, config, on_result=on_result)
            constrained.extend((schemas[r.key], r.text) for r in results if schemas[r.key] is not None)
            return results

        def close(self):  # the session closes it
            pass

    def create_backend(spec):
        assert (spec.backend, spec.name) == ("vllm", engine.name)
        return SessionEngine()

    monkeypatch.setattr(shared, "create_backend", create_backend)
    return constrained


@pytest.mark.parametrize("benchmark", list(BENCHMARKS))
def test_constrained_judging_gives_valid_json_for_every_row(engine, tiny_qwen, monkeypatch, tmp_path, benchmark):
    import jsonschema

    constrained = use_session_engine(monkeypatch, engine)
    out = tmp_path / benchmark
    spec = f"vllm:{tiny_qwen}"
    args = ["run", *BENCHMARKS[benchmark], "--limit", "2", "--shortest", "--model", spec, "--judge", spec]
    args += ["--constrained-judge", "on", "--max-new-tokens", "32", "--judge-max-new-tokens", "2048"]
    assert main([*args, "--out", str(out)]) == 0
    judgements = records(out / "judgements.jsonl")
    assert len(constrained) == len(judgements) >= 2
    for schema, reply in constrained:
        jsonschema.validate(json.loads(reply), schema)  # compact or not, valid under the benchmark's schema
    assert [j["unscored_reason"] for j in judgements] == [None] * len(judgements)
    assert "compact JSON engine-wide" in yaml.safe_load((out / "config.yaml").read_text())["judge_engine"]


def start(args: list[str], log: Path) -> subprocess.Popen:
    """`longform-eval` in its own process group (vLLM's engine runs in child processes), its output to `log`."""
    with log.open("a") as handle:
        command = [sys.executable, "-m", "longform_eval.inference", *args]
        return subprocess.Popen(command, stdout=handle, stderr=subprocess.STDOUT, start_new_session=True)


def kill_group_when(process: subprocess.Popen, path: Path, lines: int, log: Path, timeout: float = 900) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists() or path.read_bytes().count(b"\n") < lines:
        if process.poll() is not None:
            pytest.fail(f"the run ended before {path.name} had {lines} lines: {log.read_text()[-3000:]}")
        if time.monotonic() > deadline:
            os.killpg(process.pid, signal.SIGKILL)
            pytest.fail(f"no progress in {timeout} s: {log.read_text()[-3000:]}")
        time.sleep(0.005)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def finish(args: list[str], log: Path) -> str:
    process = start(args, log)
    try:
        process.wait(timeout=900)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    text = log.read_text()
    assert process.returncode == 0, text[-3000:]
    return text


def test_a_run_killed_with_sigkill_resumes_without_losing_or_repeating_a_record_then_reruns_with_no_call(
    tiny_qwen, tmp_path
):
    out, rows = tmp_path / "run", 6
    spec = f"vllm:{tiny_qwen}"
    args = ["run", "--benchmark", "hellobench:chat", "--limit", str(rows), "--shortest", "--out", str(out)]
    args += ["--model", spec, *engine_args("model"), "--model-arg", "chunk_size=2", "--max-new-tokens", "48"]
    args += ["--judge", spec, *engine_args("judge"), "--judge-arg", "chunk_size=2"]  # the same spec: one engine
    args += ["--constrained-judge", "on", "--judge-max-new-tokens", "2048"]
    generations = out / "generations.jsonl"
    killed = start(args, tmp_path / "killed.log")
    kill_group_when(killed, generations, 2, tmp_path / "killed.log")  # the first chunk saved: kill everything
    before = generations.read_text().split("\n")[:-1]  # the complete lines
    assert killed.returncode == -signal.SIGKILL and 2 <= len(before) < rows
    resumed = finish(args, tmp_path / "resumed.log")
    assert f"model calls {rows - len(before)}, judge calls {rows}" in resumed
    after = generations.read_text().splitlines()
    assert after[: len(before)] == before  # nothing written before the kill is rewritten
    ids = [r["sample_id"] for r in records(generations)]
    assert len(ids) == len(set(ids)) == rows and all(r["completion_tokens"] for r in records(generations))
    judgements = records(out / "judgements.jsonl")
    assert len(judgements) == rows and [j["unscored_reason"] for j in judgements] == [None] * rows  # none "not JSON"
    config = yaml.safe_load((out / "config.yaml").read_text())
    assert config["engine"] == config["judge_engine"] and config["engine"].startswith("vllm ")
    rerun = finish(args, tmp_path / "rerun.log")
    assert "model calls 0, judge calls 0" in rerun
    assert generations.read_text().splitlines() == after
