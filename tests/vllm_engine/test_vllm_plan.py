"""The `vllm:` backend's memory settings, planned from the rows when not given, by its contract: a fake `vllm` module
whose engine checks its settings at start as vLLM does (free memory against `gpu_memory_utilization`, the KV cache
against `max_model_len`) and refuses a prompt longer than `max_model_len`. Not marked `vllm`: it runs in the main
venv; the real engine (vLLM's CPU build) runs the marked tests beside it in CI."""

from __future__ import annotations

import dataclasses
import json
import sys
import tarfile
import types
from pathlib import Path

import pytest
from tiny_qwen import ARCHIVE

from longform_eval.inference.backends.base import Request
from longform_eval.inference.backends.memory_plan import GiB, ModelShape
from longform_eval.inference.backends.vllm_plan import DeviceMemory, plan_vllm, step_bytes
from longform_eval.inference.config import GenerationConfig

MODELS = Path(__file__).resolve().parents[3] / "shared" / "models"
QWEN2_7B = {
    "hidden_size": 3584,
    "intermediate_size": 18944,
    "num_hidden_layers": 28,
    "num_attention_heads": 28,
    "num_key_value_heads": 4,
    "vocab_size": 152064,
    "torch_dtype": "bfloat16",
}
CONFIG = GenerationConfig(max_new_tokens=512, temperature=0.0)


@pytest.fixture(scope="module")
def qwen7b(tmp_path_factory) -> Path:
    """Qwen2.5's tokenizer and config (no weights: the fake engine loads none), the config in a 7B shape with a 128k
    context, like the long-context models whose context vLLM's defaults cannot hold on a small GPU."""
    out = tmp_path_factory.mktemp("qwen7b")
    with tarfile.open(MODELS / ARCHIVE) as archive:
        archive.extractall(out, filter="data")
    folder = out / "q05"
    config = json.loads((folder / "config.json").read_text())
    config.update(QWEN2_7B, max_position_embeddings=131072, layer_types=["full_attention"] * 28)
    (folder / "config.json").write_text(json.dumps(config))
    return folder


def shape_of(folder: Path) -> ModelShape:
    from transformers import AutoConfig

    return ModelShape.of(AutoConfig.from_pretrained(folder), 2, "flash")


def fake_vllm(monkeypatch, folder: Path, free: int, total: int, fields=("enable_chunked_prefill",)):
    """A vLLM on a GPU of `total` bytes with `free` free. It refuses to start as vLLM does: with less free than
    `gpu_memory_utilization` asks for, or a `max_model_len` (default: the model's context) longer than the KV cache
    left beside the weights, a step of `max_num_batched_tokens` (default 16384) and 1 GiB of graphs."""
    from transformers import AutoTokenizer

    shape, tokenizer = shape_of(folder), AutoTokenizer.from_pretrained(folder)
    started: dict = {}

    class FakeLLM:
        def __init__(self, **options):
            started.update(options)
            util = options.get("gpu_memory_utilization", 0.9)
            if util * total > free:
                raise ValueError(
                    f"Free memory on device ({free / GiB:.2f}/{total / GiB:.2f} GiB) on startup is less "
                    f"than desired GPU memory utilization ({util})"
                )
            step = step_bytes(shape, options.get("max_num_batched_tokens", 16384))
            cache = util * total - shape.weight_bytes - step - GiB
            self.max_len = options.get("max_model_len") or shape.context
            if self.max_len * shape.kv_per_token > cache:
                raise ValueError(
                    f"The model's max seq len ({self.max_len}) is larger than the maximum number of tokens "
                    f"that can be stored in KV cache ({int(cache // shape.kv_per_token)})"
                )

        def get_default_sampling_params(self):
            return None

        def chat(self, conversations, params):
            texts = [
                tokenizer.apply_chat_template(c, tokenize=False, add_generation_prompt=True) for c in conversations
            ]
            return self.answer([len(tokenizer(t, add_special_tokens=False)["input_ids"]) for t in texts], params)

        def generate(self, prompts, params):
            return self.answer([len(tokenizer(p)["input_ids"]) for p in prompts], params)

        def answer(self, lengths, params):
            for n, p in zip(lengths, params, strict=True):
                if n + p["max_tokens"] > self.max_len:
                    raise ValueError(f"This model's maximum context length is {self.max_len} tokens")
            done = types.SimpleNamespace(text="hi", finish_reason="length", token_ids=[1])
            return [types.SimpleNamespace(outputs=[done], prompt_token_ids=[1] * n) for n in lengths]

    engine_args = dataclasses.make_dataclass("EngineArgs", [(f, object, None) for f in ["model", *fields]])
    module = types.SimpleNamespace(LLM=FakeLLM, EngineArgs=engine_args, SamplingParams=dict, __version__="fake")
    monkeypatch.setitem(sys.modules, "vllm", module)
    return started


def backend(monkeypatch, folder: Path, memory: DeviceMemory | None, **options):
    from longform_eval.inference.backends.vllm_backend import VLLMBackend

    monkeypatch.setattr(VLLMBackend, "device_memory", lambda self: memory, raising=False)
    return VLLMBackend(str(folder), **options)


def hellobench_like() -> list[Request]:
    """Short chat prompts and one of 35k characters (about 8k tokens), as HelloBench's longest."""
    chats = [Request(f"r{i}", messages=({"role": "user", "content": f"Write a story number {i}."},)) for i in range(6)]
    return [*chats, Request("long", messages=({"role": "user", "content": "word, " * 5800},))]


def test_vllm_defaults_refuse_to_start_on_a_small_gpu_and_the_planned_settings_start(monkeypatch, qwen7b, capsys):
    total = 24 * GiB  # a 24 GB card: a 7B model's weights leave too little cache for a 128k context
    started = fake_vllm(monkeypatch, qwen7b, free=23 * GiB, total=total)
    with pytest.raises(ValueError, match="larger than the maximum number of tokens"):
        sys.modules["vllm"].LLM(model=str(qwen7b))  # vLLM's defaults
    engine = backend(monkeypatch, qwen7b, DeviceMemory(23 * GiB, total))
    assert not engine.started  # started by the first rows
    results = engine.generate(hellobench_like(), CONFIG)
    assert not any(r.error for r in results) and results[-1].prompt_tokens > 8000
    assert 8704 <= started["max_model_len"] < 131072 and started["max_num_batched_tokens"] == 16384
    assert started["gpu_memory_utilization"] == 0.9 and started["enable_chunked_prefill"] is True
    line = next(x for x in capsys.readouterr().err.splitlines() if x.startswith("vllm: memory plan: "))
    assert f"max_model_len {started['max_model_len']} (planned)" in line and "gpu_memory_utilization 0.9" in line
    assert (
        results[0]
        .extra["engine"]
        .endswith(
            f"; gpu_memory_utilization 0.9, max_num_batched_tokens 16384, max_model_len {started['max_model_len']}"
        )
    )


def test_with_another_process_on_the_gpu_vllm_takes_what_is_free(monkeypatch, qwen7b):
    total, free = 80 * GiB, 60 * GiB  # vLLM's 0.9 of an H100 is 72 GiB: refused at start
    started = fake_vllm(monkeypatch, qwen7b, free=free, total=total)
    with pytest.raises(ValueError, match="less than desired GPU memory utilization"):
        sys.modules["vllm"].LLM(model=str(qwen7b), max_model_len=32768)
    started.clear()
    results = backend(monkeypatch, qwen7b, DeviceMemory(free, total)).generate(hellobench_like(), CONFIG)
    assert not any(r.error for r in results)
    assert started["gpu_memory_utilization"] == 0.73 and "max_model_len" not in started  # the 128k context fits


def test_given_settings_are_kept_and_rows_longer_than_max_model_len_are_named_and_refused_alone(
    monkeypatch, qwen7b, capsys
):
    started = fake_vllm(monkeypatch, qwen7b, free=79 * GiB, total=80 * GiB)
    given = {"max_model_len": 4096, "gpu_memory_utilization": 0.8, "max_num_batched_tokens": 4096}
    engine = backend(monkeypatch, qwen7b, DeviceMemory(79 * GiB, 80 * GiB), **given)
    results = {r.key: r for r in engine.generate(hellobench_like(), CONFIG)}
    assert {k: started[k] for k in given} == given
    assert results["r0"].extra["engine"] == "vllm fake, structured outputs guidance, compact JSON not controlled"
    printed = capsys.readouterr().err
    assert "vllm: 1 row longer than max_model_len 4096 tokens (vLLM refuses them): long" in printed
    assert results["long"].error.startswith("vLLM refused the request") and not results["r0"].error


def test_on_the_cpu_build_the_kv_cache_space_bounds_max_model_len(monkeypatch, qwen7b):
    started = fake_vllm(monkeypatch, qwen7b, free=1 << 50, total=1 << 50)
    engine = backend(monkeypatch, qwen7b, DeviceMemory(4 * GiB, 4 * GiB, gpu=False), kv_cache_space_gib=4)
    engine.generate(hellobench_like(), CONFIG)
    capacity = 4 * GiB // shape_of(qwen7b).kv_per_token
    assert started["max_model_len"] == int(capacity * 0.9) // 16 * 16 and "gpu_memory_utilization" not in started
    assert not {"enable_chunked_prefill", "max_num_batched_tokens"} & set(started)  # the CPU build's own


def test_a_model_transformers_cannot_read_starts_with_vllm_defaults(monkeypatch, qwen7b, capsys):
    started = fake_vllm(monkeypatch, qwen7b, free=79 * GiB, total=80 * GiB)
    started_on = backend(monkeypatch, Path("/models/not-here"), DeviceMemory(79 * GiB, 80 * GiB), max_model_len=8192)
    started_on.generate([Request("a", prompt="Hi")], CONFIG)
    assert started["max_model_len"] == 8192 and not {"gpu_memory_utilization", "max_num_batched_tokens"} & set(started)
    assert "vllm: no memory plan (" in capsys.readouterr().err


def test_the_plan_per_gpu_under_tensor_parallelism():
    shape = ModelShape.of(types.SimpleNamespace(**QWEN2_7B, max_position_embeddings=131072), 2, "flash")
    lengths = {"a": 9000, "b": 100}
    one = plan_vllm(shape, lengths, 512, DeviceMemory(23 * GiB, 24 * GiB), {}, parallel=1)
    two = plan_vllm(shape, lengths, 512, DeviceMemory(23 * GiB, 24 * GiB), {}, parallel=2)
    assert two.capacity > 2 * one.capacity  # each GPU holds half the weights and half of each token's cache
    squeezed = plan_vllm(shape, lengths, 512, DeviceMemory(18 * GiB, 37 * GiB // 2), {})
    assert squeezed.settings["gpu_memory_utilization"] > 0.9 and squeezed.too_long == ()  # more of the GPU for the row
    assert squeezed.settings["max_model_len"] >= 9512
    full = plan_vllm(shape, lengths, 512, DeviceMemory(17 * GiB, 18 * GiB), {})
    assert full.too_long == ("a",) and full.settings["max_num_batched_tokens"] == 2048  # named before the run
    none = plan_vllm(shape, lengths, 512, None, {})
    assert none.settings == {} and none.capacity is None and none.too_long == ()  # vLLM sizes itself
