"""The openai backend against a local fault-injecting server: retries, Retry-After, timeouts, bad output."""

from __future__ import annotations

import json
import time

import pytest

from longform_eval.inference.backends.base import Request
from longform_eval.inference.backends.openai_backend import OpenAIBackend
from longform_eval.inference.cli import main
from longform_eval.inference.config import GenerationConfig, ModelSpec

from .conftest import chat_run
from .fault_server import FaultServer

VERDICT6 = json.dumps([{"checklist_id": i, "reason": "solid", "evaluation_score": 0.75} for i in range(6)])


def backend(url, **options):
    return OpenAIBackend("judge-model", base_url=url, backoff_base=0.05, **options)


def chat(key, text):
    return Request(key=key, messages=({"role": "user", "content": text},))


def test_retries_429_with_retry_after_500_and_timeouts(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret")
    with FaultServer(slow_seconds=2.0) as server:
        client = backend(server.url, timeout=0.5, max_attempts=4)
        began = time.perf_counter()
        results = client.generate(
            [chat("r", "MARK-rate"), chat("e", "MARK-error"), chat("s", "MARK-slow"), chat("p", "plain")],
            GenerationConfig(max_new_tokens=8),
        )
        elapsed = time.perf_counter() - began
    by_key = {r.key: r for r in results}
    assert all(r.error is None and r.text == "OK" for r in results)
    assert (by_key["r"].attempts, by_key["e"].attempts, by_key["s"].attempts, by_key["p"].attempts) == (2, 3, 2, 1)
    assert by_key["r"].seconds >= 1.0  # waited for Retry-After
    assert elapsed < 6
    assert by_key["p"].prompt_tokens == 10 and by_key["p"].completion_tokens == 5
    assert server.authorizations == {"Bearer sk-test-secret"}


def test_gives_up_after_the_last_attempt_with_the_reason():
    with FaultServer() as server:
        results = backend(server.url, max_attempts=2).generate([chat("e", "MARK-error")], GenerationConfig())
    assert results[0].error.startswith(f"{server.url}: HTTP 500") and results[0].attempts == 2
    assert results[0].text == ""


def test_bounded_requests_in_flight():
    with FaultServer(service_time=0.2) as server:
        backend(server.url, max_in_flight=3).generate([chat(str(i), "plain") for i in range(12)], GenerationConfig())
    assert server.max_in_flight == 3


def test_api_key_only_from_the_environment():
    with pytest.raises(ValueError, match="only from the environment"):
        ModelSpec.parse("openai:m", {"base_url": "http://127.0.0.1:1/v1", "api_key": "sk-leak"})
    with pytest.raises(TypeError):
        OpenAIBackend("m", base_url="http://127.0.0.1:1/v1", api_key="sk-leak")


def test_unreachable_server_is_a_clear_error(tmp_path, capsys, gpt4o_replays):
    generations, _ = gpt4o_replays
    assert (
        main(
            chat_run(
                1,
                f"replay:{generations}",
                "openai:judge",
                str(tmp_path / "r"),
                "--judge-arg",
                "base_url=http://127.0.0.1:9/v1",
                "--judge-arg",
                "max_attempts=2",
                "--judge-arg",
                "backoff_base=0.01",
            )
        )
        == 2
    )
    assert "cannot reach http://127.0.0.1:9/v1" in capsys.readouterr().err
    assert len((tmp_path / "r/generations.jsonl").read_text().splitlines()) == 1  # finished work is kept


def test_malformed_and_truncated_judge_output_end_unscored_never_zero(tmp_path, shared_data, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-never-written")
    model = tmp_path / "model.jsonl"
    lines = (shared_data / "hellobench/data/main_data/chat.jsonl").read_text().splitlines()[:4]
    ids = [json.loads(line)["id"] for line in lines]
    marks = ["plain", "malformed", "truncated", "rate"]
    model.write_text(
        "\n".join(json.dumps({"key": i, "text": f"An answer. MARK-{m}"}) for i, m in zip(ids, marks, strict=True))
        + "\n"
    )
    with FaultServer(ok_text=lambda prompt: VERDICT6) as server:
        out = tmp_path / "run"
        assert (
            main(
                chat_run(
                    4,
                    f"replay:{model}",
                    "openai:gpt-judge",
                    str(out),
                    "--judge-arg",
                    f"base_url={server.url}",
                    "--judge-arg",
                    "backoff_base=0.01",
                )
            )
            == 0
        )
    records = {json.loads(x)["sample_id"]: json.loads(x) for x in (out / "judgements.jsonl").read_text().splitlines()}
    assert records[ids[0]]["verdict"] == [0.75] * 6 and records[ids[3]]["verdict"] == [0.75] * 6
    for bad in ids[1:3]:
        assert records[bad]["verdict"] is None and records[bad]["attempts"] == 3
        assert records[bad]["unscored_reason"]
    assert server.seen["malformed"] == 3 and server.seen["truncated"] == 3
    scores = json.loads((out / "scores.json").read_text())
    assert (scores["n_scored"], scores["n_unscored"]) == (2, 2)
    assert scores["tasks"]["chat"]["score"] == pytest.approx(0.0)  # (75 - 75) * 4 from the two scored rows
    for path in out.iterdir():
        if path.is_file() and path.suffix in (".jsonl", ".json", ".yaml", ".md"):
            assert "sk-never-written" not in path.read_text()
