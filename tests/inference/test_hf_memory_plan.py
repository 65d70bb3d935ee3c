"""The memory plan of the `hf` backend's continuous engine, on a fake model config (a Qwen2-7B shape, no weights) and a
fake GPU with a memory budget that charges what transformers' engine does not count (the MLP's prefill activations,
the CUDA graphs' pools: 9.20 GiB measured on an H100 at its default chunk of 8192 tokens, issue 48)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from longform_eval.inference.backends.memory_plan import (
    MIN_CHUNK,
    PAGE,
    GiB,
    ModelShape,
    Workload,
    budget_of,
    cost,
    plan_memory,
    too_long,
)

transformers = pytest.importorskip("transformers")

QWEN2_7B = transformers.Qwen2Config(
    hidden_size=3584,
    intermediate_size=18944,
    num_hidden_layers=28,
    num_attention_heads=28,
    num_key_value_heads=4,
    vocab_size=152064,
    max_position_embeddings=32768,
)
H100_FREE = 64 * GiB  # an 80 GB H100 with 15 GB of bf16 weights loaded
MEASURED_POOLS = 9.20 * GiB  # the graphs' private pools at chunk 8192 when the issue's pass ran out of memory
NEW_TOKENS = 512


def shape(attention: str = "sdpa") -> ModelShape:
    return ModelShape.of(QWEN2_7B, 2, attention)


def hellobench_like(rows: int) -> tuple[int, ...]:
    """Prompt lengths shaped like HelloBench's first rows under Qwen's tokenizer: most near 100 tokens, one in five
    long (the longest of the first 256 is 7,795 tokens; 256 rows hold about 300k prompt tokens)."""
    return tuple(7795 - 20 * (i % 300) if i % 5 == 0 else 90 + i % 40 for i in range(rows))


@dataclass
class FakeGPU:
    """A GPU running transformers' engine: the cache it is given, the largest step's activations (every projection of
    the MLP and the fp32 logits of each token), and the graphs' pools (the measured 9.20 GiB, scaled by the chunk).
    `run` says whether a pass over `prompts` gets through, or runs out of memory at its largest step."""

    free: int
    shape: ModelShape

    def peak(self, cache_tokens: int, chunk: int, graphs: bool, prompts: tuple[int, ...]) -> int:
        step = min(chunk, sum(prompts) + len(prompts))  # a step takes whole prompts or chunks of them
        per_token = 3 * self.shape.intermediate * 2 + self.shape.vocab * 4 + 2 * self.shape.hidden * 2
        pools = MEASURED_POOLS * chunk / 8192 if graphs else 0
        return int(cache_tokens * self.shape.kv_per_token + step * per_token + pools)

    def run(self, cache_tokens: int, chunk: int, graphs: bool, prompts: tuple[int, ...]) -> bool:
        return self.peak(cache_tokens, chunk, graphs, prompts) <= self.free

    def engine_default_cache(self, chunk: int = 8192) -> int:
        """The cache transformers' engine gives itself: 90% of free memory less what it counts for a step."""
        counted = chunk * (self.shape.hidden * 2 + self.shape.vocab * 4)
        return int((0.9 * self.free - counted) // self.shape.kv_per_token)


@pytest.mark.parametrize("rows", [64, 256, 647])
def test_a_7b_shape_on_an_h100_fits_its_longest_prefill_and_graph_pools_beside_the_cache(rows):
    prompts = hellobench_like(rows) if rows > 64 else tuple(90 + i % 40 for i in range(64))
    gpu = FakeGPU(H100_FREE, shape())
    plan = plan_memory(shape(), Workload(prompts, NEW_TOKENS), H100_FREE)
    assert plan is not None and plan.graphs and plan.chunk >= 4096
    assert plan.cache_tokens >= max(prompts) + NEW_TOKENS and plan.bytes <= budget_of(H100_FREE)
    assert gpu.run(plan.cache_tokens, plan.chunk, plan.graphs, prompts)
    # the engine sizing itself (the first pass) runs out of memory at its first long prefill
    assert not gpu.run(gpu.engine_default_cache(), 8192, True, prompts)


def test_the_graph_pool_estimate_covers_what_was_measured():
    step = cost(shape(), 0, 8192, graphs=True) - cost(shape(), 0, 8192, graphs=False)
    assert step >= MEASURED_POOLS


def test_many_rows_get_a_cache_for_all_of_them_or_for_as_many_as_fit():
    short = Workload(tuple([100] * 64), NEW_TOKENS)
    plan = plan_memory(shape(), short, H100_FREE)
    assert plan.cache_tokens == short.want == 64 * 768  # every row at once (in whole pages), not 90% of memory
    assert plan.bytes < H100_FREE / 2
    many = Workload(hellobench_like(2000), NEW_TOKENS)
    plan = plan_memory(shape(), many, H100_FREE)
    assert many.target <= plan.cache_tokens < many.want  # as many as fit, at least 64 average rows
    assert plan.bytes <= budget_of(H100_FREE) < plan.bytes + 2 * PAGE * (shape().kv_per_token + 8192 * 2 * 2)


def test_graphs_that_do_not_fit_are_left_off():
    small = 8 * GiB  # a 24 GB card with the same weights
    work = Workload(hellobench_like(256), NEW_TOKENS)
    plan = plan_memory(shape("flash_attention_2"), work, small)
    assert plan is not None and not plan.graphs and plan.cache_tokens >= work.target
    assert plan.bytes <= budget_of(small)
    with_graphs = plan_memory(shape("flash_attention_2"), work, small, graphs=True)  # asked: on, at a smaller cache
    assert with_graphs.graphs and work.need <= with_graphs.cache_tokens < plan.cache_tokens
    assert not plan_memory(shape(), work, H100_FREE, graphs=False).graphs
    tiny_card = 1 * GiB
    asked = plan_memory(shape(), Workload((7795,), NEW_TOKENS), tiny_card, graphs=True)
    assert asked is not None and not asked.graphs  # graphs fit with no chunk: off rather than no plan


def test_rows_too_long_for_any_plan_are_named_before_the_run():
    prompts = [100, 200_000, 7795, 150_000]
    assert too_long(shape(), prompts, NEW_TOKENS, 8 * GiB) == [1, 3]
    assert too_long(shape(), prompts, NEW_TOKENS, H100_FREE) == []
    assert plan_memory(shape(), Workload((200_000,), NEW_TOKENS), 8 * GiB) is None
    plan = plan_memory(shape(), Workload((100, 7795), NEW_TOKENS), 8 * GiB)
    assert plan is not None and plan.cache_tokens >= 7795 + NEW_TOKENS


def test_a_cache_share_caps_the_cache_but_never_below_the_longest_row():
    work = Workload(hellobench_like(256), NEW_TOKENS)
    plan = plan_memory(shape(), work, H100_FREE, cache_share=0.1)
    assert plan.cache_tokens == int(H100_FREE * 0.1 / shape().kv_per_token) // PAGE * PAGE
    assert plan_memory(shape(), work, H100_FREE, cache_share=0.0001).cache_tokens == work.need


def test_out_of_memory_shrinks_chunk_then_graphs_then_cache_then_chunk_again():
    plan = plan_memory(shape(), Workload(hellobench_like(256), NEW_TOKENS), H100_FREE)
    need = 7795 + NEW_TOKENS
    steps = []
    while plan is not None:
        steps.append((plan.chunk, plan.graphs, plan.cache_tokens, plan.retry))
        smaller = plan.shrink(need)
        assert smaller is None or smaller.bytes < plan.bytes
        plan = smaller
    assert [s[:2] for s in steps[:5]] == [(8192, True), (4096, True), (2048, True), (1024, True), (1024, False)]
    caches = [s[2] for s in steps]
    assert caches[5] == caches[4] // 2 // PAGE * PAGE and min(caches) >= need
    assert steps[-1][0] == MIN_CHUNK and [s[3] for s in steps] == list(range(len(steps)))


def test_the_plan_in_one_line_and_in_config_yaml():
    work = Workload(hellobench_like(256), NEW_TOKENS)
    plan = plan_memory(shape(), work, H100_FREE)
    line = plan.line(work)
    assert "\n" not in line and line.startswith("hf: memory plan for 256 rows (longest prompt 7795 + 512 tokens)")
    assert f"cache {plan.cache_tokens} tokens" in line and "chunk 8192 tokens, CUDA graphs on" in line
    gib = plan.cache_tokens * shape().kv_per_token / GiB
    assert (
        plan.engine()
        == f"continuous (cache {plan.cache_tokens} tokens ({gib:.1f} GiB), chunk 8192 tokens, CUDA graphs on)"
    )
    retry = plan.shrink(7795 + NEW_TOKENS)
    assert retry.engine().startswith("continuous (retry 1: cache ")
    # the runner records the first of the engines sorted: the plan made before the run, not a retry or static
    assert sorted([retry.engine(), "static", plan.engine()])[0] == plan.engine()


def test_the_shape_of_a_config():
    qwen = shape()
    assert qwen.kv_per_token == 2 * 28 * 4 * 128 * 2 and qwen.masked and qwen.masks == 1 and qwen.context == 32768
    assert not shape("flash_attention_2").masked
    assert 6.5e9 < qwen.weight_bytes / 2 < 8e9  # Qwen2-7B: 7.6B parameters
    gemma = ModelShape.of(transformers.Gemma3TextConfig(), 2, "eager")
    assert gemma.head_dim == 256 and gemma.masks == 2  # its own head size; sliding layers beside full ones
    nested = transformers.LlavaConfig(text_config=QWEN2_7B.to_dict())
    assert ModelShape.of(nested, 2, "sdpa").kv_per_token == qwen.kv_per_token
