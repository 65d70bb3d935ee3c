"""The `vllm:` backend on the session's real engine: chunks, sampling settings, refused prompts, and `serve`."""

from __future__ import annotations

import json
import threading

import pytest

from longform_eval.inference.backends.base import Request
from longform_eval.inference.config import GenerationConfig, ModelSpec

pytestmark = [pytest.mark.vllm, pytest.mark.slow]

PROMPTS = ["Write a poem about rain.", "Summarize the plot of Hamlet.", "List three prime numbers.", "Hello", "Why?"]


def chat(key: str, text: str) -> Request:
    return Request(key, messages=({"role": "user", "content": text},))


def texts(engine, requests, config, chunk_size: int) -> tuple[list[str], list[str]]:
    """The texts, and the keys in the order `on_result` saw them, with the engine called `chunk_size` rows at a time."""
    engine.chunk_size, seen = chunk_size, []
    results = engine.generate(requests, config, on_result=lambda r: seen.append(r.key))
    assert not [r.error for r in results if r.error]
    return [r.text for r in results], seen


def test_chunks_deliver_every_row_and_sampling_settings_reach_the_engine(engine):
    requests = [chat(str(i), text) for i, text in enumerate(PROMPTS)]
    greedy = GenerationConfig(max_new_tokens=12, temperature=0.0)
    results = engine.generate(requests, greedy)
    first, order = texts(engine, requests, greedy, chunk_size=2)  # three chunks: 2, 2, 1
    assert order == [r.key for r in requests]
    again, _ = texts(engine, requests, greedy, chunk_size=2)
    assert again == first  # temperature 0, the same chunks: the same text
    assert all(0 < r.completion_tokens <= 12 for r in results)
    assert all(r.completion_tokens == 12 for r in results if r.finish_reason == "length")
    assert results[0].extra["engine"].startswith("vllm ") and "compact JSON engine-wide" in results[0].extra["engine"]
    seeded = GenerationConfig(max_new_tokens=12, temperature=1.0, seed=7)
    one, _ = texts(engine, requests, seeded, chunk_size=2)
    assert texts(engine, requests, seeded, chunk_size=2)[0] == one  # the seed reaches the engine
    other = GenerationConfig(max_new_tokens=12, temperature=1.0, seed=8)
    assert texts(engine, requests, other, chunk_size=2)[0] != one


def test_a_prompt_longer_than_the_context_is_a_failed_call_and_the_rest_of_its_chunk_runs(engine):
    engine.chunk_size = 256
    long_prompt = "word " * 20000  # far over max_model_len (16384 tokens)
    requests = [chat("a", "Hello"), Request("long", prompt=long_prompt), chat("b", "Why?"), Request("c", prompt="Hi")]
    results = {r.key: r for r in engine.generate(requests, GenerationConfig(max_new_tokens=4, temperature=0.0))}
    assert results["long"].error and "maximum context length" in results["long"].error
    assert results["long"].text == "" and results["long"].completion_tokens is None
    assert all(not results[k].error and results[k].completion_tokens for k in "abc")
    (after,) = engine.generate([chat("d", "Still here?")], GenerationConfig(max_new_tokens=4, temperature=0.0))
    assert not after.error and after.completion_tokens  # the engine goes on after refusing a request


def test_serve_with_vllm_answers_an_openai_client(engine, monkeypatch):
    """`serve` over the session's engine (loaded once for the session, so created here through the same factory)."""
    from openai import OpenAI

    from longform_eval.inference.backends import serve
    from longform_eval.inference.backends.shared import KeepOpen

    spec = ModelSpec(backend="vllm", model=engine.name.removeprefix("vllm:"))

    def create_backend(given: ModelSpec) -> KeepOpen:
        assert given == spec
        return KeepOpen(engine)

    monkeypatch.setattr(serve, "create_backend", create_backend)
    server = serve.ModelServer(spec, port=0)
    thread = threading.Thread(target=server.httpd.serve_forever, daemon=True)
    thread.start()
    try:
        client = OpenAI(base_url=server.url, api_key="unused")
        assert [m.id for m in client.models.list().data] == [spec.model]
        reply = client.chat.completions.create(
            model=spec.model, messages=[{"role": "user", "content": "Hello"}], max_tokens=8, temperature=0
        )
        assert reply.choices[0].message.content and 0 < reply.usage.completion_tokens <= 8
        label = {"label": {"enum": ["yes", "no"]}}
        schema = {"type": "object", "properties": label, "required": ["label"], "additionalProperties": False}
        form = {"type": "json_schema", "json_schema": {"name": "label", "schema": schema}}
        constrained = client.chat.completions.create(
            model=spec.model, messages=[{"role": "user", "content": "Yes?"}], max_tokens=32, response_format=form
        )
        assert json.loads(constrained.choices[0].message.content)["label"] in ("yes", "no")
        completion = client.completions.create(model=spec.model, prompt="Once upon", max_tokens=4, temperature=0)
        assert completion.choices[0].text and 0 < completion.usage.completion_tokens <= 4
    finally:
        server.httpd.shutdown()
        server.httpd.server_close()
