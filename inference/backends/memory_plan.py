"""A memory plan for continuous batching, made before the first step: KV cache size, prefill chunk, CUDA graphs.

One pass of transformers' continuous batching fails every row in it when one step runs out of memory, and its own
sizing gives the KV cache ~90% of free memory without counting the MLP's prefill activations or the CUDA graphs'
private pools (9.2 GiB on an H100 for a 7B model). The plan sizes all three from the model's shape (layers, KV heads,
head size, dtype), the rows (prompt lengths, `max_new_tokens`) and the free memory, so that the longest prompt's
prefill and the graphs' pools fit beside the cache:

- cache: enough for every row at once (more is never used), at least the longest row (prompt + new tokens), at most
  what is left once the chunk's activations (and the graphs' pools) are paid for;
- chunk (`max_batch_tokens`): the most tokens one step takes; longer prompts are prefilled in chunks of it;
- CUDA graphs: on when their pools fit beside a cache that holds enough rows at once, else off.

Rows whose own cache does not fit beside the smallest chunk are too long for any plan (`too_long`). After an
out-of-memory error `MemoryPlan.shrink` gives the next, smaller plan. The byte counts are estimates on the high side
(`cost`); vLLM's settings come from the same shape (`vllm_plan`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from longform_eval.common.plurals import counted

GiB = 1 << 30
PAGE = 256  # tokens: the cache is planned in pages of this size (transformers' default page size)
MAX_CHUNK = 8192  # transformers' default max_batch_tokens
MIN_CHUNK = 16
GRAPH_MIN_CHUNK = 512  # below this, a plan leaves CUDA graphs off rather than shrink the chunk further
SHRINK_FLOOR = 1024  # an out-of-memory error halves the chunk down to this before it turns graphs off
MARGIN = 0.9  # share of free memory a plan may use...
RESERVE = 1 * GiB  # ...less this (or 5% of free memory, the smaller): allocator fragmentation, sampler, context
GRAPH_POOLS = 2  # captured graphs keep the activations of their largest step, twice with async batching
TARGET_ROWS = 64  # a plan first looks for a cache that holds this many average rows at once


@dataclass(frozen=True)
class ModelShape:
    """What the memory of a decoder-only model depends on, per token."""

    layers: int
    heads: int
    kv_heads: int
    head_dim: int
    hidden: int
    intermediate: int
    vocab: int
    dtype_bytes: int
    masked: bool = True  # attention reads an explicit mask (eager/sdpa; flash attention needs none)
    masks: int = 1  # 2 with sliding-window layers beside full ones
    context: int | None = None  # max_position_embeddings

    @classmethod
    def of(cls, config: Any, dtype_bytes: int, attention: str | None = None) -> ModelShape:
        """The shape of a transformers config (its text config for multimodal models)."""
        text = config.get_text_config() if hasattr(config, "get_text_config") else config
        heads = int(text.num_attention_heads)
        hidden = int(text.hidden_size)
        attention = attention or getattr(text, "_attn_implementation", None) or ""
        sliding = "sliding_attention" in (getattr(text, "layer_types", None) or ())
        return cls(
            layers=int(text.num_hidden_layers),
            heads=heads,
            kv_heads=int(getattr(text, "num_key_value_heads", None) or heads),
            head_dim=int(getattr(text, "head_dim", None) or hidden // heads),
            hidden=hidden,
            intermediate=int(getattr(text, "intermediate_size", None) or 4 * hidden),
            vocab=int(text.vocab_size),
            dtype_bytes=dtype_bytes,
            masked="flash" not in str(attention),
            masks=2 if sliding else 1,
            context=getattr(text, "max_position_embeddings", None),
        )

    @property
    def kv_per_token(self) -> int:
        """Bytes of KV cache per token (keys and values of every layer)."""
        return 2 * self.layers * self.kv_heads * self.head_dim * self.dtype_bytes

    @property
    def read_per_cache_token(self) -> int:
        """Bytes per cached token read back at the attention peak (eager/sdpa repeat KV heads to the query heads)."""
        heads = 2 * self.heads + self.kv_heads if self.masked else 2 * self.kv_heads
        return heads * self.head_dim * self.dtype_bytes

    @property
    def activation_per_token(self) -> int:
        """Bytes per token of one step: the larger of the LM head (fp32 logits) and attention peaks, plus the MLP."""
        lm_head = self.hidden * self.dtype_bytes + self.vocab * 4
        attention = (2 * self.hidden + 4 * self.kv_heads * self.head_dim) * self.dtype_bytes
        return max(lm_head, attention) + 3 * self.intermediate * self.dtype_bytes

    @property
    def weight_bytes(self) -> int:
        """An estimate of the weights: embeddings and LM head, attention and MLP projections of every layer."""
        attention = (
            self.hidden * (self.heads + 2 * self.kv_heads) * self.head_dim + self.heads * self.head_dim * self.hidden
        )
        layer = attention + 3 * self.hidden * self.intermediate
        return (2 * self.vocab * self.hidden + self.layers * layer) * self.dtype_bytes


def cost(shape: ModelShape, cache_tokens: int, chunk: int, graphs: bool) -> int:
    """Bytes a plan takes: the cache and what is read from it, one step's activations and masks, the graphs' pools."""
    cache = cache_tokens * (shape.kv_per_token + shape.read_per_cache_token)
    step = chunk * shape.activation_per_token
    masks = shape.masks * chunk * (cache_tokens + chunk) * shape.dtype_bytes if shape.masked else 0
    return cache + step + masks + (GRAPH_POOLS * step if graphs else 0)


def budget_of(free_bytes: int) -> int:
    """The bytes a plan may take out of `free_bytes`."""
    return max(0, int(free_bytes * MARGIN) - min(RESERVE, free_bytes // 20))


def size(n: int) -> str:
    """Bytes as GiB, or MiB under a tenth of a GiB."""
    return f"{n / GiB:.1f} GiB" if n >= GiB // 10 else f"{n / (1 << 20):.1f} MiB"


def pages(tokens: int) -> int:
    """`tokens` rounded up to whole pages."""
    return max(1, math.ceil(tokens / PAGE)) * PAGE


def largest_cache(shape: ModelShape, budget: int, chunk: int, graphs: bool) -> int:
    """The most cache tokens (whole pages) that fit `budget` beside `chunk` (cost is linear in the cache size)."""
    fixed = cost(shape, 0, chunk, graphs)
    per_token = cost(shape, 1, chunk, graphs) - fixed
    return max(0, (budget - fixed) // per_token) // PAGE * PAGE


@dataclass(frozen=True)
class Workload:
    """The rows of one generate call: their prompt lengths (tokens) and the new tokens each may add."""

    prompt_tokens: tuple[int, ...]
    max_new_tokens: int

    @property
    def need(self) -> int:
        """Cache tokens the longest row needs on its own."""
        return pages(max(self.prompt_tokens, default=0) + self.max_new_tokens)

    @property
    def want(self) -> int:
        """Cache tokens that hold every row at once (each row takes whole pages)."""
        return max(PAGE, sum(pages(n + self.max_new_tokens) for n in self.prompt_tokens))

    @property
    def target(self) -> int:
        """Cache tokens that hold TARGET_ROWS average rows at once (or every row, when fewer)."""
        rows = max(1, len(self.prompt_tokens))
        return min(self.want, max(self.need, pages(self.want * min(rows, TARGET_ROWS) // rows)))

    @property
    def chunk_cap(self) -> int:
        """The largest useful chunk: the power of two that takes every prompt at once, within MIN..MAX_CHUNK."""
        total = sum(self.prompt_tokens) + len(self.prompt_tokens)
        return min(MAX_CHUNK, max(MIN_CHUNK, 1 << max(0, total - 1).bit_length()))


@dataclass(frozen=True)
class MemoryPlan:
    """What the engine is given: `cache_tokens` of KV cache, `chunk` tokens a step, CUDA graphs or not."""

    shape: ModelShape
    cache_tokens: int
    chunk: int
    graphs: bool
    free_bytes: int
    rows: int = 0
    retry: int = 0  # 0 for the plan made before the run; n for the n-th shrink after an out-of-memory error

    @property
    def bytes(self) -> int:
        return cost(self.shape, self.cache_tokens, self.chunk, self.graphs)

    def summary(self) -> str:
        graphs = "on" if self.graphs else "off"
        cache = f"cache {self.cache_tokens} tokens ({size(self.cache_tokens * self.shape.kv_per_token)})"
        return f"{cache}, chunk {self.chunk} tokens, CUDA graphs {graphs}"

    def engine(self) -> str:
        """What config.yaml records (`engine`); the plan made before the run sorts before its retries."""
        step = f"retry {self.retry}: " if self.retry else ""
        return f"continuous ({step}{self.summary()})"

    def line(self, workload: Workload) -> str:
        """The plan in one line, with what it was made from."""
        longest = max(workload.prompt_tokens, default=0)
        return (
            f"hf: memory plan for {counted(self.rows, 'row')} (longest prompt {longest} + {workload.max_new_tokens} "
            "tokens), "
            f"{size(self.free_bytes)} free: {self.summary()}; estimated {size(self.bytes)} in all"
        )

    def shrink(self, need: int) -> MemoryPlan | None:
        """The next plan after an out-of-memory error, for rows whose longest needs `need` cache tokens: the chunk
        halves (down to SHRINK_FLOOR), then graphs go off, then the cache halves (not below `need`), then the chunk
        halves down to MIN_CHUNK; None when nothing is left to shrink."""
        if self.chunk > SHRINK_FLOOR:
            return replace(self, chunk=self.chunk // 2, retry=self.retry + 1)
        if self.graphs:
            return replace(self, graphs=False, retry=self.retry + 1)
        half = self.cache_tokens // 2 // PAGE * PAGE
        if half >= pages(need):
            return replace(self, cache_tokens=half, retry=self.retry + 1)
        if self.chunk > MIN_CHUNK:
            return replace(self, chunk=self.chunk // 2, retry=self.retry + 1)
        return None


def chunks(cap: int, floor: int) -> list[int]:
    """Chunk sizes from `cap` down to `floor`, halving."""
    found = []
    while cap >= floor:
        found.append(cap)
        cap //= 2
    return found


def options(workload: Workload, graphs: bool | None) -> list[tuple[bool, int]]:
    """(graphs, chunk) in order of preference: graphs first unless ruled out, the largest chunk first."""
    order = []
    if graphs is not False:
        order += [(True, c) for c in chunks(workload.chunk_cap, min(GRAPH_MIN_CHUNK, workload.chunk_cap))]
    if graphs is not True:
        order += [(False, c) for c in chunks(workload.chunk_cap, MIN_CHUNK)]
    return order


def plan_memory(
    shape: ModelShape,
    workload: Workload,
    free_bytes: int,
    graphs: bool | None = None,
    cache_share: float | None = None,
) -> MemoryPlan | None:
    """The plan for these rows, or None when not even the longest row's cache fits beside the smallest chunk.

    Args:
        graphs: None to use CUDA graphs when they fit, True or False to decide (True still falls back to off when
            graphs fit with no chunk).
        cache_share: a cap on the cache, as a share of `free_bytes` (the backend's `kv_memory`), never below the
            cache the longest row needs.
    """
    budget = budget_of(free_bytes)
    cap = int(free_bytes * cache_share / shape.kv_per_token) // PAGE * PAGE if cache_share else None
    tiers = [workload.target, workload.need] if workload.target > workload.need else [workload.need]
    groups = [options(workload, graphs)] + ([options(workload, False)] if graphs is True else [])
    for ordered in groups:  # graphs asked for: with graphs at any cache that holds a row before without them
        for floor in tiers:
            for use_graphs, chunk in ordered:
                room = largest_cache(shape, budget, chunk, use_graphs)
                cache = min(room, workload.want, max(cap, workload.need) if cap is not None else room)
                if cache >= floor:
                    rows = len(workload.prompt_tokens)
                    return MemoryPlan(shape, cache, chunk, use_graphs, free_bytes, rows)
    return None


def too_long(shape: ModelShape, prompt_tokens: Sequence[int], max_new_tokens: int, free_bytes: int) -> list[int]:
    """Indices of the rows whose own cache does not fit beside the smallest chunk, with no graphs."""
    room = largest_cache(shape, budget_of(free_bytes), MIN_CHUNK, graphs=False)
    return [i for i, n in enumerate(prompt_tokens) if pages(n + max_new_tokens) > room]
