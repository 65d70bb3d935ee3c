"""A tiny random-weight Qwen2 (2 layers, hidden 128) with the default model's real tokenizer and chat template.

Built from the config and tokenizer of Qwen2.5-Coder-0.5B-Instruct in `models/qwen2.5-coder-0.5b-config-tokenizer.tgz`
beside the benchmark data (no weights, no download). Random weights almost never emit EOS: every row runs to its
token limit, and its text is noise (valid JSON only where a grammar constrains it).
"""

from __future__ import annotations

import tarfile
from pathlib import Path

ARCHIVE = "qwen2.5-coder-0.5b-config-tokenizer.tgz"
# The options every engine of the tests starts with: no torch.compile (minutes on a CPU), a small KV cache.
ENGINE_OPTIONS = {"enforce_eager": True, "kv_cache_space_gib": 1, "max_model_len": 16384}
SHAPE = {
    "hidden_size": 128,
    "intermediate_size": 256,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "max_window_layers": 2,
    "layer_types": ["full_attention"] * 2,
}


DEEP_SHAPE = SHAPE | {  # 40 KiB of KV cache per token (80 layers x 4 KV heads x 32 x 2 x 2 bytes): 1 GiB holds 26,214
    # tokens, fewer than the config's 32,768 positions: vLLM 0.32's CPU build refuses to start at its default
    # max_model_len ("1.25 GiB KV cache is needed, which is larger than the available KV cache memory (1.0 GiB)")
    "num_hidden_layers": 80,
    "num_key_value_heads": 4,
    "max_window_layers": 80,
    "layer_types": ["full_attention"] * 80,
}


def build_tiny_qwen(models: Path, out: Path, seed: int = 0, shape: dict | None = None) -> Path:
    """Save the tiny model (`shape`: SHAPE unless given) to `out` (config, bf16 safetensors, tokenizer, chat template)
    and return `out`."""
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer

    unpacked = out.parent / f"{out.name}-source"
    with tarfile.open(models / ARCHIVE) as archive:
        archive.extractall(unpacked, filter="data")
    source = unpacked / "q05"
    config = AutoConfig.from_pretrained(source)
    for key, value in (shape or SHAPE).items():
        setattr(config, key, value)
    torch.manual_seed(seed)
    model = AutoModelForCausalLM.from_config(config, dtype=torch.bfloat16)
    model.save_pretrained(out)
    AutoTokenizer.from_pretrained(source).save_pretrained(out)
    return out


def engine_args(role: str) -> list[str]:
    """`--model-arg`/`--judge-arg` flags that give a command's engine ENGINE_OPTIONS."""
    flags = []
    for key, value in ENGINE_OPTIONS.items():
        flags += [f"--{role}-arg", f"{key}={str(value).lower()}"]
    return flags
