"""Static batching for the `hf` backend: `batch_size=auto` from free GPU memory, and halving on out-of-memory.

`auto` picks the largest batch whose KV cache (prompt + max_new_tokens) plus the prefill activations of its longest
row fit in the free memory with a margin. A CUDA out-of-memory error in a batch halves that batch and retries both
halves (later batches keep the smaller size); a single row that still does not fit comes back as an error Result.
No row is lost or repeated.
"""

from __future__ import annotations

import gc
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

from ..config import GenerationConfig
from .base import OnResult, Request, Result

CPU_BATCH_SIZE = 4
MAX_AUTO_BATCH = 256
MEMORY_MARGIN = 0.85  # of the free memory
RESERVE_BYTES = 1 << 30  # for the allocator's fragmentation, the sampler, CUDA graphs


def out_of_memory_errors() -> tuple[type[BaseException], ...]:
    import torch

    found = {getattr(torch, "OutOfMemoryError", None), getattr(torch.cuda, "OutOfMemoryError", None)}
    return tuple(e for e in found if e is not None)


def bytes_per_row(model_config: Any, prompt_tokens: int, max_new_tokens: int, dtype_bytes: int) -> int:
    """KV cache of one row for its whole length plus the prefill activations of its prompt (MLP and residuals)."""
    text = model_config.get_text_config() if hasattr(model_config, "get_text_config") else model_config
    heads = text.num_attention_heads
    kv_heads = getattr(text, "num_key_value_heads", None) or heads
    head_dim = getattr(text, "head_dim", None) or text.hidden_size // heads
    kv_per_token = 2 * text.num_hidden_layers * kv_heads * head_dim * dtype_bytes
    intermediate = getattr(text, "intermediate_size", None) or 4 * text.hidden_size
    prefill_per_token = (3 * intermediate + 6 * text.hidden_size) * dtype_bytes
    logits = getattr(text, "vocab_size", 0) * 4 * 2
    return kv_per_token * (prompt_tokens + max_new_tokens) + prefill_per_token * prompt_tokens + logits


def free_bytes(device: str) -> int:
    import torch

    free, _ = torch.cuda.mem_get_info(torch.device(device))
    return int(free)


def fitting_batch(per_row: Callable[[int], int], lengths: Sequence[int], budget: int, cap: int) -> int:
    """The largest n <= cap such that n rows, each costed at the longest of `lengths[:n]` (sorted), fit `budget`."""
    n = min(cap, len(lengths))
    while n > 1 and per_row(lengths[n - 1]) * n > budget:
        n = max(1, min(n - 1, budget // max(per_row(lengths[n - 1]), 1)))
    return max(n, 1)


class StaticBatcher:
    """Runs rows sorted by prompt length through `generate_batch`, batch by batch, halving on out-of-memory.

    Args:
        generate_batch: generates one batch of requests (given their token ids) and returns one Result per row.
        batch_size: a fixed batch size, or a function of the sorted prompt lengths still to run giving the next one.
    """

    def __init__(self, generate_batch: Callable[[list[Request], list[list[int]]], list[Result]], batch_size):
        self.generate_batch = generate_batch
        self.batch_size = batch_size
        self.limit: int | None = None  # lowered by out-of-memory errors
        self.halvings = 0

    def next_size(self, lengths: Sequence[int]) -> int:
        size = self.batch_size(lengths) if callable(self.batch_size) else int(self.batch_size)
        return max(1, min(size, self.limit or size))

    def run(self, ordered: list[Request], ids: dict[str, list[int]], on_result: OnResult | None) -> list[Result]:
        remaining = deque(ordered)
        queued: deque[list[Request]] = deque()
        results: list[Result] = []
        while queued or remaining:
            if not queued:
                size = self.next_size([len(ids[r.key]) for r in remaining])
                queued.append([remaining.popleft() for _ in range(min(size, len(remaining)))])
            batch = queued.popleft()
            done = self.attempt(batch, ids)
            if done is None:  # out of memory: halve the batch and run both halves first
                half = len(batch) // 2
                self.limit = half
                self.halvings += 1
                queued.extendleft([batch[half:], batch[:half]])
                continue
            for result in done:
                results.append(result)
                if on_result is not None:
                    on_result(result)
        return results

    def attempt(self, batch: list[Request], ids: dict[str, list[int]]) -> list[Result] | None:
        """The batch's results; None when it ran out of memory and can be split; error Results for a lone row."""
        began = time.perf_counter()
        try:
            return self.generate_batch(batch, [ids[r.key] for r in batch])
        except out_of_memory_errors() as error:
            message = f"out of memory: {str(error).splitlines()[0][:200] if str(error) else type(error).__name__}"
        release_memory()
        if len(batch) > 1:
            return None
        seconds = time.perf_counter() - began
        return [Result(batch[0].key, "", None, len(ids[batch[0].key]), None, seconds, error=message)]


def release_memory() -> None:
    gc.collect()
    try:
        import torch

        if torch.cuda.is_available():
            torch.cuda.empty_cache()
    except ImportError:
        pass


def sampling_options(config: GenerationConfig) -> dict[str, Any]:
    """Greedy at temperature 0; unset top_p/top_k leave the model's own generation_config in force."""
    if config.temperature <= 0:
        return {"do_sample": False}
    options: dict[str, Any] = {"do_sample": True, "temperature": config.temperature}
    options.update({k: v for k, v in (("top_p", config.top_p), ("top_k", config.top_k)) if v is not None})
    return options
