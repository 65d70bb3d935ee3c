"""Constrained judging: each backend carries a request's JSON schema to its engine, and the runner sends the
benchmark's schema only when `constrained_judge` is on (a recorded deviation)."""

from __future__ import annotations

import dataclasses
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


# Where vLLM reads "compact JSON" (no free whitespace), by version: engine arguments, then the per-request params.
GUIDED = ["guided_decoding_backend"]
VLLM_GENERATIONS = {
    "0.10.2+": (["structured_outputs_config"], "StructuredOutputsParams", True),
    "0.8.5-0.10.1": ([*GUIDED, "guided_decoding_disable_any_whitespace"], "GuidedDecodingParams", True),
    "0.8.x": (GUIDED, "GuidedDecodingParams", True),
    "0.6": (GUIDED, "GuidedDecodingParams", False),
}


def fake_vllm(monkeypatch, generation: str):
    """A vLLM of one generation: its engine arguments and request parameters as dataclasses, as vLLM declares them."""
    engine_fields, params_name, has_flag = VLLM_GENERATIONS[generation]
    calls, started = [], {}

    class FakeLLM:
        def __init__(self, **options):
            started.update(options)

        def get_default_sampling_params(self):
            return RecordingParams(top_k=20)

        def generate(self, prompts, params):
            calls.append(params)
            done = types.SimpleNamespace(text='"yes"', finish_reason="stop", token_ids=[1])
            return [types.SimpleNamespace(outputs=[done], prompt_token_ids=[1]) for _ in prompts]

    flag = [("disable_any_whitespace", bool, False)] if has_flag else []
    params = dataclasses.make_dataclass(params_name, [("json", object, None), *flag])
    engine_args = dataclasses.make_dataclass("EngineArgs", [(name, object, None) for name in ["model", *engine_fields]])
    module = types.SimpleNamespace(
        LLM=FakeLLM,
        EngineArgs=engine_args,
        SamplingParams=dict,
        sampling_params=types.SimpleNamespace(**{params_name: params}),
        __version__=generation,
    )
    monkeypatch.setitem(sys.modules, "vllm", module)
    return calls, started


@pytest.mark.parametrize("generation", list(VLLM_GENERATIONS))
def test_vllm_asks_for_compact_json_where_its_version_reads_it_and_records_where(monkeypatch, generation):
    calls, started = fake_vllm(monkeypatch, generation)
    from longform_eval.inference.backends.vllm_backend import VLLMBackend

    backend = VLLMBackend("/models/x", structured_outputs_backend="guidance")
    results = backend.generate(
        [Request("a", prompt="p", json_schema=YES_NO_SCHEMA), Request("b", prompt="q")], GenerationConfig()
    )
    (params,) = calls
    constrained, free = params
    request = constrained.structured_outputs if generation == "0.10.2+" else constrained.guided_decoding
    assert request.json == YES_NO_SCHEMA
    assert not hasattr(free, "structured_outputs") and not hasattr(free, "guided_decoding")
    assert constrained.top_k == free.top_k == 20  # the model's own defaults kept
    engine_wide = {
        "0.10.2+": {"structured_outputs_config": {"backend": "guidance", "disable_any_whitespace": True}},
        "0.8.5-0.10.1": {"guided_decoding_backend": "guidance", "guided_decoding_disable_any_whitespace": True},
    }
    where = {"0.10.2+": "engine-wide", "0.8.5-0.10.1": "engine-wide", "0.8.x": "per request", "0.6": "not controlled"}
    for key, value in engine_wide.get(generation, {"guided_decoding_backend": "guidance"}).items():
        assert started[key] == value
    assert getattr(request, "disable_any_whitespace", None) is (True if generation != "0.6" else None)
    engine = f"vllm {generation}, structured outputs guidance, compact JSON {where[generation]}"
    assert [r.extra["engine"] for r in results] == [engine, engine]


def test_vllm_options_are_typed_and_change_the_configuration():
    from longform_eval.inference.backends import check_options, output_neutral_options
    from longform_eval.inference.config import ModelSpec

    def problem(**options):
        try:
            check_options(ModelSpec(backend="vllm", model="m", options=options))
        except ValueError as error:
            return str(error)
        return None

    assert problem(enforce_eager=True, structured_outputs_backend="xgrammar", kv_cache_space_gib=4) is None
    assert "structured_outputs_backend='outlines'" in problem(structured_outputs_backend="outlines")
    assert "kv_cache_space_gib=0" in problem(kv_cache_space_gib=0)
    assert "enforce_eager='yes'" in problem(enforce_eager="yes")
    # eager vs compiled kernels, another KV cache size (other batches) and another grammar engine can each change
    # an output, as chunk_size can: none of them is left out of the comparison of a resumed run's configuration
    assert not output_neutral_options("vllm") & {"enforce_eager", "kv_cache_space_gib", "structured_outputs_backend"}


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
