"""A run killed with SIGKILL at several points resumes without losing or repeating a record."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

LIMIT = 40


def line_count(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.exists() else 0


def start(args: list[str]) -> subprocess.Popen:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen(
        [sys.executable, "-m", "longform_eval.inference", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def kill_when(process: subprocess.Popen, path: Path, lines: int, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while line_count(path) < lines:
        if process.poll() is not None:
            pytest.fail(f"the run ended before {path.name} had {lines} lines: {process.stderr.read()[-2000:]}")
        if time.monotonic() > deadline:
            process.kill()
            pytest.fail("timed out waiting for progress")
        time.sleep(0.005)
    process.send_signal(signal.SIGKILL)
    process.wait()


@pytest.mark.slow
def test_sigkill_at_several_points_then_resume(gpt4o_replays, tmp_path):
    generations, verdicts = gpt4o_replays
    out = tmp_path / "run"
    args = [
        "run",
        "--benchmark",
        "hellobench:chat",
        "--limit",
        str(LIMIT),
        "--model",
        f"replay:{generations}",
        "--model-arg",
        "delay=0.03",
        "--judge",
        f"replay:{verdicts}",
        "--judge-arg",
        "delay=0.03",
        "--out",
        str(out),
    ]
    gen_log, judge_log = out / "generations.jsonl", out / "judgements.jsonl"
    for log, lines in ((gen_log, 3), (gen_log, 17), (gen_log, 31), (judge_log, 2), (judge_log, 25)):
        kill_when(start(args), log, lines)
    finished = subprocess.run(
        [sys.executable, "-m", "longform_eval.inference", *args], capture_output=True, text=True, timeout=300
    )
    assert finished.returncode == 0, finished.stderr[-2000:]
    for log in (gen_log, judge_log):
        ids = [json.loads(line)["sample_id"] for line in log.read_text().splitlines()]
        assert len(ids) == LIMIT and len(set(ids)) == LIMIT, log.name
        assert log.read_bytes().endswith(b"\n")
    again = subprocess.run(
        [sys.executable, "-m", "longform_eval.inference", *args], capture_output=True, text=True, timeout=300
    )
    assert again.returncode == 0
    assert "model calls 0, judge calls 0" in again.stderr
    assert json.loads((out / "scores.json").read_text())["n_scored"] == LIMIT
