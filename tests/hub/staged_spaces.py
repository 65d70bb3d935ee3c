"""The metric Spaces as `publish --stage` writes them, and a context that starts them as the Hub starts them (`python
app.py` in each folder, nothing of the checkout on the path but the installed package)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import pytest
from answering import wait_until_answers

from longform_eval.inference.cli import main

ORG = "metric-org"
METRICS = ["helloeval", "longbench_write", "longgenbench", "pairwise"]
START_SECONDS = 120  # four Spaces starting at once on a busy machine (evaluate imports transformers)
OFFLINE = {
    "HF_HUB_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "HF_EVALUATE_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "GRADIO_ANALYTICS_ENABLED": "False",
}


@pytest.fixture(scope="module")
def staged(shared_data, tmp_path_factory) -> Path:
    """`publish --org ORG --stage DIR`: the folder of the metric Spaces."""
    out = tmp_path_factory.mktemp("release") / "stage"
    assert main(["publish", "--org", ORG, "--stage", str(out), "--source", str(shared_data)]) == 0
    return out / "spaces" / ORG


def free_ports(count: int) -> list[int]:
    """`count` distinct free ports (all held at once while chosen)."""
    with ExitStack() as stack:
        sockets = [stack.enter_context(socket.socket()) for _ in range(count)]
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]


@contextmanager
def running_spaces(folders: dict[str, Path], logs: Path) -> Iterator[dict[str, tuple[subprocess.Popen, str]]]:
    """`python app.py` in each folder, all at once, with nothing of the checkout on the path but the installed
    package: name -> (process, url), once every one answers."""
    logs.mkdir()
    started: dict[str, tuple[subprocess.Popen, str]] = {}
    try:
        for (name, folder), port in zip(folders.items(), free_ports(len(folders)), strict=True):
            env = os.environ | OFFLINE | {"PYTHONPATH": "", "HF_HOME": str(logs / f"hf-{name}")}
            env |= {"GRADIO_SERVER_NAME": "127.0.0.1", "GRADIO_SERVER_PORT": str(port)}
            with open(logs / f"{name}.log", "w", encoding="utf-8") as log:
                process = subprocess.Popen(
                    [sys.executable, "app.py"], cwd=folder, env=env, stdout=log, stderr=subprocess.STDOUT
                )
            started[name] = process, f"http://127.0.0.1:{port}/"
        deadline = time.monotonic() + START_SECONDS
        for name, (process, url) in started.items():
            wait_until_answers(process, url, deadline, logs / f"{name}.log")
        yield started
    finally:
        for process, _ in started.values():
            process.kill()
            process.wait(timeout=30)
