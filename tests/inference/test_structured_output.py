"""Constrained judging: each backend carries a request's JSON schema to its engine, and the runner sends the
benchmark's schema only when `constrained_judge` is on (a recorded deviation)."""

from __future__ import annotations

import json
import sys
import types

import pytest
import yaml

from longform_eval.inference.backends.base import Request
from longform_eval.inference.backends.openai_backend import OpenAIBackend
from longform_eval.inference.cli import main
from longform_eval.inference.config import GenerationConfig
from longform_eval.metric.helloeval.parser import parse_verdict, verdict_schema
from longform_eval.metric.longgenbench.judge import YES_NO_SCHEMA

from .conftest import chat_run, save_tiny_llama
from .fault_server import FaultServer

YES_NO_WORDS = ('"', "[", "]", ",")


def test_openai_sends_the_schema_as_response_format_on_both_endpoints(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    schema = verdict_schema(2)
    with FaultServer() as server:
        client = OpenAIBackend("judge", base_url=server.url, max_attempts=1)
        client.generate(
            [
                Request("c", messages=({"role": "user", "content": "judge"},), json_schema=schema),
                Request("r", prompt="judge raw", json_schema=YES_NO_SCHEMA),
                Request("free", messages=({"role": "user", "content": "free"},)),
            ],
            GenerationConfig(max_new_tokens=8),
        )
    by_prompt = {b.get("prompt") or b["messages"][0]["content"]: b for b in server.bodies}
    assert by_prompt["judge"]["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "judgement", "schema": schema, "strict": True},
    }
    assert by_prompt["judge raw"]["response_format"]["json_schema"]["schema"] == YES_NO_SCHEMA
    assert "response_format" not in by_prompt["free"]


class RecordingParams(types.SimpleNamespace):
    def clone(self):
        return RecordingParams(**vars(self))


def fake_vllm(monkeypatch, new_api: bool):
    calls = []

    class FakeLLM:
        def __init__(self, **options):
            pass

        def get_default_sampling_params(self):
            return RecordingParams(top_k=20)

        def generate(self, prompts, params):
            calls.append(params)
            done = types.SimpleNamespace(text='"yes"', finish_reason="stop", token_ids=[1])
            return [types.SimpleNamespace(outputs=[done], prompt_token_ids=[1]) for _ in prompts]

    structured = types.SimpleNamespace()
    if new_api:
        structured.StructuredOutputsParams = lambda **kw: ("structured", kw)
    else:
        structured.GuidedDecodingParams = lambda **kw: ("guided", kw)
    module = types.SimpleNamespace(LLM=FakeLLM, SamplingParams=dict, sampling_params=structured)
    monkeypatch.setitem(sys.modules, "vllm", module)
    return calls


@pytest.mark.parametrize("new_api", [True, False])
def test_vllm_gives_each_constrained_request_its_own_structured_output_params(monkeypatch, new_api):
    calls = fake_vllm(monkeypatch, new_api)
    from longform_eval.inference.backends.vllm_backend import VLLMBackend

    backend = VLLMBackend("/models/x")
    backend.generate(
        [Request("a", prompt="p", json_schema=YES_NO_SCHEMA), Request("b", prompt="q")], GenerationConfig()
    )
    (params,) = calls
    constrained, free = params
    if new_api:
        assert constrained.structured_outputs == ("structured", {"json": YES_NO_SCHEMA, "disable_any_whitespace": True})
    else:
        assert constrained.guided_decoding == ("guided", {"json": YES_NO_SCHEMA})
    assert not hasattr(free, "structured_outputs") and not hasattr(free, "guided_decoding")
    assert constrained.top_k == free.top_k == 20  # the model's own defaults kept


@pytest.fixture(scope="module")
def json_llama(tmp_path_factory):
    from longform_eval.inference.backends.hf_backend import HFBackend

    folder = save_tiny_llama(tmp_path_factory.mktemp("json_llama"), extra_words=YES_NO_WORDS)
    return HFBackend(str(folder), device="cpu", dtype="float32", batch_size=4)


def test_hf_masks_each_row_with_its_own_schema_and_leaves_free_rows_alone(json_llama):
    pytest.importorskip("xgrammar")
    config = GenerationConfig(max_new_tokens=6, temperature=0.0)
    free_alone = json_llama.generate([Request("free", prompt="hello world")], config)[0]
    results = json_llama.generate(
        [
            Request("yn", prompt="hello world", json_schema=YES_NO_SCHEMA),
            Request("list", prompt="hello", json_schema={"type": "array", "items": YES_NO_SCHEMA, "maxItems": 2}),
            Request("free", prompt="hello world"),
        ],
        config,
    )
    by_key = {r.key: r for r in results}
    assert json.loads(by_key["yn"].text.replace(" ", "")) in ("yes", "no")
    assert all(x in ("yes", "no") for x in json.loads(by_key["list"].text.replace(" ", "")))
    assert by_key["free"].text == free_alone.text  # an unconstrained row in the same batch is not masked
    assert json_llama.engine == "static"


def recording_backends(monkeypatch):
    """Wrap every backend the CLI creates, keeping the judge requests it is given."""
    from longform_eval.inference.backends import shared as cli_run  # where the run command gets its backends

    seen: list[Request] = []
    real = cli_run.create_backend

    def create(spec):
        inner = real(spec)

        class Recorder:
            name = inner.name

            def generate(self, requests, config, on_result=None):
                seen.extend(requests)
                return inner.generate(requests, config, on_result=on_result)

            def close(self):
                inner.close()

        return Recorder()

    monkeypatch.setattr(cli_run, "create_backend", create)
    return seen


@pytest.mark.parametrize("constrained", ["on", "off"])
def test_runner_sends_the_schema_only_when_constrained_and_records_the_deviation(
    tmp_path, gpt4o_replays, monkeypatch, constrained
):
    generations, verdicts = gpt4o_replays
    seen = recording_backends(monkeypatch)
    out = tmp_path / "run"
    args = chat_run(2, f"replay:{generations}", f"replay:{verdicts}", str(out), "--constrained-judge", constrained)
    assert main(args) == 0
    judge_requests = [r for r in seen if r.messages and "checklists" in r.messages[-1]["content"]]
    assert len(judge_requests) == 2
    config = yaml.safe_load((out / "config.yaml").read_text())
    deviations = json.loads((out / "scores.json").read_text())["deviations"]
    constrained_line = "judge output constrained to a JSON schema (paper: free text)"
    if constrained == "on":
        assert all(r.json_schema["minItems"] == r.json_schema["maxItems"] > 0 for r in judge_requests)
        assert config["constrained_judge"] is True and constrained_line in deviations
    else:
        assert all(r.json_schema is None for r in judge_requests)
        assert config["constrained_judge"] is False and constrained_line not in deviations


def test_the_verdict_schema_admits_only_what_the_upstream_parser_reads():
    schema = verdict_schema(2)
    reason = schema["items"]["properties"]["reason"]
    assert schema["items"]["properties"]["evaluation_score"]["enum"] == [0, 0.25, 0.5, 0.75, 1]
    assert reason["maxLength"] > 0
    import re

    assert re.match(reason["pattern"], "fine, plain words")
    assert not re.match(reason["pattern"], 'a "quoted" word') and not re.match(reason["pattern"], "back\\slash")
    reply = json.dumps([{"checklist_id": i, "reason": "ok", "evaluation_score": s} for i, s in enumerate([0.5, 1])])
    assert parse_verdict(reply, 2).verdict == [0.5, 1.0]
