"""The `vllm:` backend's planned settings on the real engine (vLLM's CPU build): with `max_model_len` not given and a
KV cache space that holds fewer tokens than the model's context, the plan bounds it, the engine starts with it, and a
row longer than it is named and refused alone (the fake engine of test_vllm_plan.py checks the same rule; this one
checks that vLLM itself accepts what the plan chose). Its own engine, so it starts once, in this test."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tiny_qwen import DEEP_SHAPE, ENGINE_OPTIONS, build_tiny_qwen

from longform_eval.inference.backends.base import Request
from longform_eval.inference.config import GenerationConfig

pytestmark = [pytest.mark.vllm, pytest.mark.slow]

MODELS = Path(__file__).resolve().parents[3] / "shared" / "models"


def cache_tokens_and_context(model: Path, space_gib: int) -> tuple[int, int]:
    """The tokens a KV cache of `space_gib` holds for the model (K and V, 2 bytes each, per layer and KV head), and
    the model's own context, vLLM's max_model_len when none is given."""
    config = json.loads((model / "config.json").read_text())
    head = config["hidden_size"] // config["num_attention_heads"]
    per_token = config["num_hidden_layers"] * config["num_key_value_heads"] * head * 2 * 2
    return space_gib * 2**30 // per_token, config["max_position_embeddings"]


def test_on_the_cpu_build_max_model_len_is_planned_from_the_cache_and_a_longer_row_is_refused_alone(
    tmp_path_factory, capsys
):
    from longform_eval.inference.backends.vllm_backend import VLLMBackend

    model = build_tiny_qwen(MODELS, tmp_path_factory.mktemp("models") / "deep-qwen2", shape=DEEP_SHAPE)
    cache_tokens, context = cache_tokens_and_context(model, ENGINE_OPTIONS["kv_cache_space_gib"])
    assert cache_tokens < context  # vLLM's default max_model_len would not fit: it refuses to start (tiny_qwen.py)
    options = {key: value for key, value in ENGINE_OPTIONS.items() if key != "max_model_len"}
    backend = VLLMBackend(str(model), **options)
    requests = [Request("a", prompt="Hello"), Request("long", prompt="word " * 30000), Request("b", prompt="Hi")]
    try:
        results = {r.key: r for r in backend.generate(requests, GenerationConfig(max_new_tokens=4, temperature=0.0))}
        started_with = backend.engine_llm.llm_engine.model_config.max_model_len
    finally:
        backend.close()
    planned = int(cache_tokens * 0.9) // 16 * 16  # the plan takes 90% of the cache, in vLLM's blocks of 16 tokens
    assert backend.plan.settings["max_model_len"] == planned == started_with
    printed = capsys.readouterr()
    assert f"max_model_len {planned} (planned)" in printed.err + printed.out
    assert f"1 row longer than max_model_len {planned} tokens (vLLM refuses them): long" in printed.err + printed.out
    assert results["long"].error.startswith("vLLM refused the request") and results["long"].completion_tokens is None
    assert all(not results[key].error and results[key].completion_tokens for key in "ab")
