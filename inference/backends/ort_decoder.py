"""A decoder-only ONNX model run by onnxruntime itself, several rows at a time (the `ort` backend's batched engine).

The folder is an ONNX Runtime GenAI one (genai_config.json + model.onnx) whose attention is GroupQueryAttention with
its key/value cache exposed as past/present tensors, as the model builder writes for the CPU. The cache of a call is
one buffer per layer and tensor, `[slots, kv_heads, capacity, head_size]`, bound as both past and present input and
output, so that each step writes its new keys in place. GroupQueryAttention reads each row's length from the sum of
its attention mask, so rows of different lengths decode in one batch with their caches right-padded: no padding
tokens are computed, and a row's tokens are the ones it gets alone (checked in tests/inference/test_ort_backend.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from longform_eval.common.bounded_json import loads_json
from longform_eval.common.guarded import Kind, read_bytes

GENAI_CONFIG = Kind("model settings file", 1 << 20, "a model folder's genai_config.json is a few KB", "a JSON file")
NAMED_INPUTS = {"input_ids", "attention_mask", "past_key_names", "past_value_names"}
NAMED_OUTPUTS = {"logits", "present_key_names", "present_value_names"}


def genai_settings(folder: Path) -> dict[str, Any]:
    """The folder's genai_config.json (its `model` and `search` settings), read through the guarded reader: an
    UnreadableFile naming it if it is no regular file or over GENAI_CONFIG's ceiling."""
    return loads_json(read_bytes(folder / "genai_config.json", GENAI_CONFIG))


def end_token_ids(settings: dict[str, Any]) -> set[int]:
    """The folder's end-of-sequence token ids (genai_config.json's `eos_token_id`: one id or a list)."""
    ends = settings["model"]["eos_token_id"]
    return set(ends if isinstance(ends, list) else [ends])


def unsupported_reason(folder: Path, settings: dict[str, Any]) -> str | None:
    """Why the batched engine cannot run this folder, whose genai_config.json holds `settings` (None: it can):
    another decoder layout, a non-CPU provider, or attention other than GroupQueryAttention."""
    try:
        decoder = settings["model"]["decoder"]
    except (KeyError, TypeError) as error:
        return f"genai_config.json has no model.decoder: {error}"
    if set(decoder.get("inputs", {})) != NAMED_INPUTS or set(decoder.get("outputs", {})) != NAMED_OUTPUTS:
        return "its decoder takes other inputs than input_ids, attention_mask and past keys/values"
    if decoder.get("session_options", {}).get("provider_options"):
        return "it names an execution provider"
    if "filename" not in decoder or not (folder / decoder["filename"]).is_file():
        return "no single decoder model file"
    import onnx

    graph = onnx.load(str(folder / decoder["filename"]), load_external_data=False).graph
    if not any(node.op_type == "GroupQueryAttention" for node in graph.node):
        return "its attention is not GroupQueryAttention"
    return None


@dataclass(frozen=True)
class Shape:
    layers: int
    kv_heads: int
    head_size: int
    dtype: Any


class DecoderModel:
    """The session and its tensor names; `forward` runs some consecutive slots of a cache for one step."""

    def __init__(self, folder: Path, settings: dict[str, Any], threads: int):
        import onnxruntime as ort

        self.ort = ort
        config = settings["model"]
        decoder = config["decoder"]
        self.vocab_size = config["vocab_size"]
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        self.session = ort.InferenceSession(
            str(folder / decoder["filename"]), options, providers=["CPUExecutionProvider"]
        )
        names = decoder["inputs"] | decoder["outputs"]
        self.input_ids, self.mask, self.logits = names["input_ids"], names["attention_mask"], names["logits"]
        layers = decoder["num_hidden_layers"]
        self.cache_names = [
            (names[f"past_{part}_names"] % layer, names[f"present_{part}_names"] % layer)
            for layer in range(layers)
            for part in ("key", "value")
        ]
        types = {i.name: i.type for i in self.session.get_inputs()}
        self.id_type = np.int32 if types[self.input_ids] == "tensor(int32)" else np.int64
        self.mask_type = np.int32 if types[self.mask] == "tensor(int32)" else np.int64
        cache_type = np.float16 if types[self.cache_names[0][0]] == "tensor(float16)" else np.float32
        self.shape = Shape(layers, decoder["num_key_value_heads"], decoder["head_size"], cache_type)

    def forward(self, cache: SlotCache, slots: slice, tokens: np.ndarray, lengths: list[int]) -> np.ndarray:
        """Append `tokens` ([rows, new]) to the rows in `slots` whose caches hold `lengths` tokens; the logits of
        each row's last token, [rows, vocabulary]. Several new tokens per step: one row only (GroupQueryAttention)."""
        rows, new = tokens.shape
        mask = np.zeros((rows, max(lengths) + new), dtype=self.mask_type)
        for row, length in enumerate(lengths):
            mask[row, : length + new] = 1
        binding = self.session.io_binding()
        binding.bind_output(self.logits)
        binding.bind_cpu_input(self.input_ids, np.ascontiguousarray(tokens, dtype=self.id_type))
        binding.bind_cpu_input(self.mask, mask)
        for (past, present), buffer in zip(self.cache_names, cache.buffers, strict=True):
            value = self.ort.OrtValue.ortvalue_from_numpy(buffer[slots])  # a view: written in place
            binding.bind_ortvalue_input(past, value)
            binding.bind_ortvalue_output(present, value)
        self.session.run_with_iobinding(binding)
        logits = binding.get_outputs()[0].numpy()
        return logits[:, -1, :].astype(np.float32)


class SlotCache:
    """Key/value buffers for `slots` rows of up to `capacity` tokens each (pages are touched only as they fill)."""

    def __init__(self, shape: Shape, slots: int, capacity: int):
        size = (slots, shape.kv_heads, capacity, shape.head_size)
        self.buffers = [np.zeros(size, dtype=shape.dtype) for _ in range(2 * shape.layers)]
        self.slots, self.capacity = slots, capacity

    def copy(self, source: SlotCache | None, source_slot: int, slot: int, length: int) -> None:
        """The first `length` positions of `source`'s slot (this cache's if None) into this cache's `slot`."""
        for mine, theirs in zip(self.buffers, (source or self).buffers, strict=True):
            mine[slot, :, :length] = theirs[source_slot, :, :length]
