"""The `vllm:` backend's planned settings on the real engine (vLLM's CPU build): with `max_model_len` not given and a
KV cache space that holds fewer tokens than the model's context, the plan bounds it, the engine starts with it, and a
row longer than it is named and refused alone (the fake engine of test_vllm_plan.py checks the same rule; this one
checks that vLLM itself accepts what the plan chose). Its own engine, so it starts once, in this test."""

from __future__ import annotations

from pathlib import Path

import pytest
from tiny_qwen import DEEP_SHAPE, ENGINE_OPTIONS, build_tiny_qwen

from longform_eval.inference.backends.base import Request
from longform_eval.inference.config import GenerationConfig

pytestmark = [pytest.mark.vllm, pytest.mark.slow]

MODELS = Path(__file__).resolve().parents[3] / "shared" / "models"
CONTEXT = 32768  # the config's max_position_embeddings, vLLM's max_model_len when none is given


def test_on_the_cpu_build_max_model_len_is_planned_from_the_cache_and_a_longer_row_is_refused_alone(
    tmp_path_factory, capsys
):
    from longform_eval.inference.backends.vllm_backend import VLLMBackend

    model = build_tiny_qwen(MODELS, tmp_path_factory.mktemp("models") / "deep-qwen2", shape=DEEP_SHAPE)
    options = {key: value for key, value in ENGINE_OPTIONS.items() if key != "max_model_len"}
    backend = VLLMBackend(str(model), **options)
    requests = [Request("a", prompt="Hello"), Request("long", prompt="word " * 30000), Request("b", prompt="Hi")]
    try:
        results = {r.key: r for r in backend.generate(requests, GenerationConfig(max_new_tokens=4, temperature=0.0))}
    finally:
        backend.close()
    planned = backend.plan.settings["max_model_len"]
    cache_tokens = ENGINE_OPTIONS["kv_cache_space_gib"] * 2**30 // (40 * 1024)
    assert planned <= cache_tokens < CONTEXT  # vLLM's default would not fit the cache
    printed = capsys.readouterr()
    assert f"max_model_len {planned} (planned)" in printed.err + printed.out
    assert f"1 row longer than max_model_len {planned} tokens (vLLM refuses them): long" in printed.err + printed.out
    assert results["long"].error and results["long"].completion_tokens is None
    assert all(not results[key].error and results[key].completion_tokens for key in "ab")
    assert f"max_model_len {planned}" in results["a"].extra["engine"]
