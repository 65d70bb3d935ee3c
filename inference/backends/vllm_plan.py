"""vLLM's memory settings chosen from the rows, when not given: `max_model_len`, `max_num_batched_tokens` and
`gpu_memory_utilization`, from the same model shape as the `hf` backend's plan (`memory_plan`).

vLLM's defaults can refuse to start: `gpu_memory_utilization=0.9` of the whole GPU when less than that is free
(another process holds some), or a `max_model_len` (the model's context, up to 128k tokens) whose KV cache does not
fit beside the weights. The plan takes what is free (at most MAX_UTILIZATION of the GPU), a prefill chunk no larger
than the rows can fill (chunked prefill on), and, when the model's context does not fit, the longest length that
does. Rows longer than the plan (or than a `max_model_len` given) are named before the run; vLLM then refuses each of
them alone (an error Result) and the others run. The estimates are on the high side of vLLM's own profile.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from longform_eval.common.plurals import counted

from .memory_plan import GiB, ModelShape

DEFAULT_UTILIZATION = 0.9  # vLLM's own
MAX_UTILIZATION = 0.95
FREE_MARGIN = 0.02  # of the GPU, left free beside what vLLM takes
MAX_CHUNK, MIN_CHUNK = 16384, 2048  # vLLM's default token budget on large GPUs; no lower than max_num_seqs
RESERVE = 2 * GiB  # CUDA graphs of the decode batch sizes, the sampler's logits, NCCL, fragmentation
CAPACITY_SHARE = 0.9  # of the estimated KV capacity a planned max_model_len may take (vLLM's profile differs)
SETTINGS = ("max_model_len", "max_num_batched_tokens", "gpu_memory_utilization")


@dataclass(frozen=True)
class DeviceMemory:
    """Free and total bytes of the GPU vLLM will use, or (CPU build) the KV cache space it is given."""

    free: int
    total: int
    gpu: bool = True


@dataclass(frozen=True)
class VLLMPlan:
    settings: dict[str, Any]  # what `vllm.LLM` is given beyond the options that were given
    too_long: tuple[str, ...]  # the rows no setting takes (vLLM refuses them one by one)
    capacity: int | None  # estimated KV cache tokens; None where the memory is not known

    def line(self, given: Mapping[str, Any]) -> str:
        chosen = {**{k: given[k] for k in SETTINGS if given.get(k) is not None}, **self.settings}
        shown = ", ".join(f"{k} {v} ({'given' if k not in self.settings else 'planned'})" for k, v in chosen.items())
        cache = f"; KV cache about {self.capacity} tokens" if self.capacity is not None else ""
        return f"vllm: memory plan: {shown or 'vLLM defaults'}{cache}"

    def engine(self) -> str:
        """The planned settings for config.yaml's `engine`."""
        return ", ".join(f"{k} {v}" for k, v in self.settings.items() if k in SETTINGS)


def chunk_cap(prompt_tokens: Mapping[str, int]) -> int:
    """The largest useful prefill chunk: the power of two that takes every prompt at once, within MIN..MAX_CHUNK."""
    total = max(1, sum(prompt_tokens.values()))
    return min(MAX_CHUNK, max(MIN_CHUNK, 1 << (total - 1).bit_length()))


def step_bytes(shape: ModelShape, chunk: int) -> int:
    """Activations of a step of `chunk` tokens (vLLM computes logits for the last token of each row alone: RESERVE)."""
    return chunk * (3 * shape.intermediate + 2 * shape.hidden + 4 * shape.kv_heads * shape.head_dim) * shape.dtype_bytes


def used_bytes(shape: ModelShape, chunk: int, parallel: int) -> int:
    """Bytes per GPU beside the KV cache: the weights, a step of `chunk` tokens, RESERVE."""
    return (shape.weight_bytes + step_bytes(shape, chunk)) // parallel + RESERVE


def kv_room(shape: ModelShape, memory: DeviceMemory, utilization: float | None, chunk: int, parallel: int) -> int:
    """Bytes of KV cache per GPU at `utilization` (on CPU: the cache space given)."""
    if not memory.gpu or utilization is None:
        return memory.total
    return int(utilization * memory.total) - used_bytes(shape, chunk, parallel)


def hundredths(share: float, up: bool = False) -> float:
    return (math.ceil if up else math.floor)(round(share * 100, 6)) / 100


def utilization_and_chunk(
    shape: ModelShape, memory: DeviceMemory, need: int, cap: int, given: Mapping[str, Any], parallel: int
) -> tuple[float | None, int]:
    """The utilization (None on CPU) and chunk whose cache holds `need` tokens: vLLM's 0.9 when that much is free,
    the largest chunk first; more of the GPU, up to what is free, when the cache needs it."""
    ceiling = hundredths(min(MAX_UTILIZATION, memory.free / memory.total - FREE_MARGIN)) if memory.gpu else None
    asked = given.get("gpu_memory_utilization")
    utilization = asked or (min(DEFAULT_UTILIZATION, ceiling) if ceiling is not None else None)
    chunks = [given["max_num_batched_tokens"]] if given.get("max_num_batched_tokens") else ladder(cap)
    kv = need * shape.kv_per_token // parallel
    for chunk in chunks:
        if kv_room(shape, memory, utilization, chunk, parallel) >= kv:
            return utilization, chunk
    if ceiling is None or asked:
        return utilization, chunks[-1]
    for chunk in chunks:
        wanted = hundredths((kv + used_bytes(shape, chunk, parallel)) / memory.total, up=True)
        if wanted <= ceiling:
            return wanted, chunk
    return ceiling, chunks[-1]


def ladder(cap: int) -> list[int]:
    found = []
    while cap >= MIN_CHUNK:
        found.append(cap)
        cap //= 2
    return found


def planned_length(capacity: int, need: int) -> int:
    """The max_model_len that `capacity` cache tokens take: CAPACITY_SHARE of it, or all the longest row needs."""
    share = int(capacity * CAPACITY_SHARE) // 16 * 16
    return max(share, -(-need // 16) * 16) if need <= capacity else share


def plan_vllm(
    shape: ModelShape,
    prompt_tokens: Mapping[str, int],
    max_new_tokens: int,
    memory: DeviceMemory | None,
    given: Mapping[str, Any],
    parallel: int = 1,
) -> VLLMPlan:
    """The settings not `given` for rows of `prompt_tokens` (by key), each adding up to `max_new_tokens`.

    Args:
        memory: the device's memory, None when it is not known (then nothing is planned: vLLM sizes itself). On
            vLLM's CPU build (`memory.gpu` false) only `max_model_len` is planned, from the cache space.
        given: the backend's options as given (None: not given), among them SETTINGS.
        parallel: GPUs one replica spreads over (tensor x pipeline parallel): each holds its share.
    """
    lengths = {key: n + max_new_tokens for key, n in prompt_tokens.items()}
    need = min(max(lengths.values(), default=1), shape.context or 1 << 62)
    settings: dict[str, Any] = {}
    capacity = None
    if memory is not None:
        utilization, chunk = utilization_and_chunk(shape, memory, need, chunk_cap(prompt_tokens), given, parallel)
        if memory.gpu and not given.get("gpu_memory_utilization"):
            settings["gpu_memory_utilization"] = utilization
        if memory.gpu and not given.get("max_num_batched_tokens"):
            settings["max_num_batched_tokens"] = chunk
        capacity = max(0, kv_room(shape, memory, utilization, chunk, parallel)) * parallel // shape.kv_per_token
    longest = given.get("max_model_len") or shape.context
    fits = planned_length(capacity or 0, need)
    if capacity is not None and not given.get("max_model_len") and (longest is None or longest > fits) and fits:
        longest = settings["max_model_len"] = fits
    too_long = tuple(key for key, n in lengths.items() if longest is not None and n > longest)
    return VLLMPlan(settings, too_long, capacity)


def nvml_memory() -> DeviceMemory | None:
    """The free and total memory of the first GPU this process sees, through NVML (no CUDA context in this process,
    which vLLM's engine process would have to work around); None without NVML or a GPU."""
    try:
        import pynvml
    except ImportError:
        return None
    visible = os.environ.get("CUDA_VISIBLE_DEVICES", "0").split(",")[0].strip()
    try:
        pynvml.nvmlInit()
        try:
            handle = pynvml.nvmlDeviceGetHandleByIndex(int(visible) if visible.isdigit() else 0)
            info = pynvml.nvmlDeviceGetMemoryInfo(handle)
            return DeviceMemory(int(info.free), int(info.total))
        finally:
            pynvml.nvmlShutdown()
    except Exception:  # no driver, no GPU, a UUID in CUDA_VISIBLE_DEVICES that is not an index...
        return None


def device_memory(kv_cache_space_gib: int | None) -> DeviceMemory | None:
    """The GPU's memory, else the CPU build's KV cache space when given, else None."""
    found = nvml_memory()
    if found is None and kv_cache_space_gib:
        return DeviceMemory(kv_cache_space_gib * GiB, kv_cache_space_gib * GiB, gpu=False)
    return found


def too_long_line(keys: tuple[str, ...], longest: int | None) -> str:
    shown = ", ".join(keys[:10]) + (f" and {len(keys) - 10} more" if len(keys) > 10 else "")
    return f"vllm: {counted(len(keys), 'row')} longer than max_model_len {longest} tokens (vLLM refuses them): {shown}"


def dtype_bytes(dtype: str, config: Any) -> int:
    """Bytes per weight and cache value for vLLM's `dtype` option (auto: the checkpoint's, 16-bit when unsaid)."""
    name = (
        str(getattr(config, "dtype", None) or getattr(config, "torch_dtype", None) or "") if dtype == "auto" else dtype
    )
    return 4 if name.removeprefix("torch.") in ("float32", "float") else 2


def prompt_lengths(tokenizer: Any, requests: Sequence[Any], chat_template: bool) -> dict[str, int]:
    """Each request's prompt in tokens, as vLLM will see it (`chat` applies the template; raw prompts as they are)."""
    lengths = {}
    for request in requests:
        if request.messages is not None and chat_template:
            text = tokenizer.apply_chat_template(list(request.messages), tokenize=False, add_generation_prompt=True)
            lengths[request.key] = len(tokenizer(text, add_special_tokens=False)["input_ids"])
        else:
            text = request.prompt if request.prompt is not None else "\n\n".join(m["content"] for m in request.messages)
            lengths[request.key] = len(tokenizer(text)["input_ids"])
    return lengths


def read_model(model: str, dtype: str, trust_remote_code: bool) -> tuple[ModelShape, Any]:
    """The model's shape and tokenizer, read as vLLM reads them (transformers' config and tokenizer)."""
    from transformers import AutoConfig, AutoTokenizer

    config = AutoConfig.from_pretrained(model, trust_remote_code=trust_remote_code)
    tokenizer = AutoTokenizer.from_pretrained(model, trust_remote_code=trust_remote_code)
    return ModelShape.of(config, dtype_bytes(dtype, config), "flash"), tokenizer
