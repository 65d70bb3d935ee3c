"""The `hf` backend's memory plan in its continuous passes, on a tiny random Llama (CPU): the plan printed and recorded,
rows too long for any plan sent to static batching, and out-of-memory errors that shrink the plan and retry only the
rows in flight, with an engine double that has a memory budget and with the installed engine under a fake device."""

from __future__ import annotations

import json

import pytest
import yaml

from longform_eval.inference.backends.base import Request
from longform_eval.inference.backends.hf_backend import HFBackend
from longform_eval.inference.cli import main
from longform_eval.inference.config import GenerationConfig

from .conftest import save_tiny_llama
from .test_hf_batching import CONFIG, FakeManager, RequestStatus, engine_kind, rows, static_results

torch = pytest.importorskip("torch")
OUT_OF_MEMORY = "CUDA out of memory. Tried to allocate 1.04 GiB"


@pytest.fixture(scope="module")
def tiny_folder(tmp_path_factory):
    return save_tiny_llama(tmp_path_factory.mktemp("tiny_llama_plan"), max_positions=16384)


@pytest.fixture
def tiny(tiny_folder):
    backend = HFBackend(str(tiny_folder), device="cpu", dtype="float32", engine="continuous")
    backend.engine_option = "continuous"  # on CPU: what `engine=continuous` forces
    return backend


def with_budget(monkeypatch, backend, free: int) -> None:
    """The plan sees `free` bytes (on CPU it would see the available RAM)."""
    monkeypatch.setattr(backend, "free_memory", lambda: free, raising=False)


def long_row(words: int = 60) -> Request:
    return Request(key="long", prompt=" ".join(["hello", "world"] * words))


class BudgetManager(FakeManager):
    """The engine double with a memory budget: a plan that truly takes 1.5x its estimate (or no plan: the engine's own
    sizing) over `budget` runs out of memory once `survive` rows have finished, failing every row still in it."""

    def __init__(self, model, plan, budget: int, survive: int = 2):
        super().__init__(model)
        self.over = plan is None or plan.bytes * 3 // 2 > budget
        self.survive, self.returned = survive, 0

    def get_result(self, request_id=None, timeout=None):
        output = super().get_result(request_id, timeout)
        if output is not None and self.over and self.returned >= self.survive:
            output.status, output.error = RequestStatus.FAILED, OUT_OF_MEMORY
        self.returned += output is not None
        return output


def test_out_of_memory_mid_pass_shrinks_the_plan_and_retries_only_the_rows_in_flight(tiny, monkeypatch):
    from longform_eval.inference.backends.memory_plan import Workload, plan_memory

    free = 64 << 20
    lengths = {r.key: len(tiny.token_ids(r, CONFIG)) for r in rows(7)}
    first = plan_memory(tiny.model_shape(), Workload(tuple(lengths.values()), CONFIG.max_new_tokens), free, False)
    smaller = first.shrink(max(lengths.values()) + CONFIG.max_new_tokens)
    budget = (first.bytes + smaller.bytes) * 3 // 4  # the first plan is over it, the next one under
    with_budget(monkeypatch, tiny, free)
    managers, plans = [], []

    def start(generation_config, prompts, config, plan=None, cuda_graph=None):
        plans.append(plan)
        managers.append(BudgetManager(tiny.model, plan, budget))
        return managers[-1]

    monkeypatch.setattr(tiny, "start_manager", start)
    seen = []
    results = {r.key: r for r in tiny.generate(rows(7), CONFIG, on_result=seen.append)}
    assert plans == [first, smaller] and tiny.plans == [first.engine(), smaller.engine()]
    in_flight = managers[0].added[2:]  # longest first: the two longest finished before the error
    assert sorted(managers[1].added) == sorted(in_flight) and len(in_flight) == 5
    assert {k: r.extra["engine"] for k, r in results.items()} == {
        k: first.engine() if k in managers[0].added[:2] else smaller.engine() for k in lengths
    }
    assert sorted(r.key for r in seen) == sorted(lengths) and not any(r.error for r in results.values())
    expected = {r.key: r.text for r in static_results(tiny, rows(7), CONFIG)}
    assert {k: r.text for k, r in results.items()} == expected


def test_the_installed_engine_out_of_memory_mid_pass_retries_the_rows_in_flight_with_a_smaller_chunk(tiny, monkeypatch):
    """The real engine, with a model that runs out of memory in a step of more tokens than `limit` (half the first
    plan's chunk): the first pass fails every row at its first step, the next one prefills in smaller chunks."""
    requests = [*rows(3), long_row(600)]
    prompt_tokens = sum(len(tiny.token_ids(r, CONFIG)) for r in requests)
    limit = 1024
    assert prompt_tokens > limit  # the first step takes every prompt: over the limit
    forward, steps = tiny.model.forward, []

    def short_steps_only(*args, **kwargs):
        steps.append(kwargs["input_ids"].shape[-1])
        if steps[-1] > limit:
            raise torch.OutOfMemoryError(OUT_OF_MEMORY)
        return forward(*args, **kwargs)

    monkeypatch.setattr(tiny.model, "forward", short_steps_only)
    seen = []
    results = {r.key: r for r in tiny.generate(requests, CONFIG, on_result=seen.append)}
    assert [engine_kind(r) for r in results.values()] == ["continuous"] * 4 and len(tiny.plans) == 2
    assert steps[0] == prompt_tokens and "chunk 2048 tokens" in tiny.plans[0]
    assert tiny.plans[1].startswith("continuous (retry 1: ") and "chunk 1024 tokens" in tiny.plans[1]
    assert max(steps[1:]) == limit  # the long prompt prefilled in two chunks
    assert sorted(r.key for r in seen) == sorted(results) and not any(r.error for r in results.values())
    monkeypatch.setattr(tiny.model, "forward", forward)
    assert {k: r.text for k, r in results.items()} == {r.key: r.text for r in static_results(tiny, requests, CONFIG)}


def test_the_installed_engine_on_a_small_device_runs_every_row_in_one_pass(tiny, monkeypatch):
    """A device of 4 MB: sized by itself (its default chunk of 8192 tokens and that chunk's attention masks) the engine
    cannot even start, which failed every row of every pass; the plan gives it a chunk and a cache that fit."""
    from transformers.generation.continuous_batching import cache

    free = 4 << 20
    monkeypatch.setattr(cache, "get_device_and_memory_breakdown", lambda: (torch.device("cpu"), free, 0, 0))
    with_budget(monkeypatch, tiny, free)
    requests = [*rows(3), long_row()]
    seen = []
    results = {r.key: r for r in tiny.generate(requests, CONFIG, on_result=seen.append)}
    assert [engine_kind(r) for r in results.values()] == ["continuous"] * 4 and len(tiny.plans) == 1
    assert sorted(r.key for r in seen) == sorted(results) and not any(r.error for r in results.values())
    assert {k: r.text for k, r in results.items()} == {r.key: r.text for r in static_results(tiny, requests, CONFIG)}


def test_rows_too_long_for_any_plan_are_named_before_the_run_and_go_to_static_batching(tiny, monkeypatch, capsys):
    managers = []

    def start(generation_config, prompts, config, plan=None, cuda_graph=None):
        managers.append(FakeManager(tiny.model))
        return managers[-1]

    monkeypatch.setattr(tiny, "start_manager", start)
    with_budget(monkeypatch, tiny, 256 << 10)  # a cache of a few pages beside the smallest chunk
    requests = [*rows(4), long_row(400)]
    results = {r.key: r for r in tiny.generate(requests, CONFIG)}
    printed = " ".join(capsys.readouterr().err.split())
    assert "hf: 1 row too long for any continuous plan in 0.2 MiB free (longest prompt 801 tokens): long" in printed
    assert "hf: memory plan for 4 rows" in printed
    assert len(managers) == 1 and "long" not in managers[0].added
    kinds = {k: engine_kind(r) for k, r in results.items()}
    assert kinds == {"r0": "continuous", "r1": "continuous", "r2": "continuous", "r3": "continuous", "long": "static"}
    assert not any(r.error for r in results.values())


def test_the_plan_is_printed_in_one_line_and_recorded_in_config_yaml(tiny_folder, tmp_path, monkeypatch, capsys):
    def start(self, generation_config, prompts, config, plan=None, cuda_graph=None):
        return FakeManager(self.model)

    monkeypatch.setattr(HFBackend, "start_manager", start)
    monkeypatch.setattr(HFBackend, "free_memory", lambda self: 2 << 30, raising=False)
    out = tmp_path / "run"
    args = ["generate", "--benchmark", "hellobench", "--limit", "6", "--max-new-tokens", "8", "--out", str(out)]
    assert main([*args, "--model", f"hf:{tiny_folder}", "--model-arg", "engine=continuous"]) == 0
    lines = [x for x in capsys.readouterr().err.splitlines() if x.startswith("hf: memory plan")]
    assert len(lines) == 1 and lines[0].startswith("hf: memory plan for 6 rows (longest prompt ")
    assert "2.0 GiB free: cache " in lines[0] and ", CUDA graphs off; estimated " in lines[0]
    engine = yaml.safe_load((out / "config.yaml").read_text())["engine"]
    summary = lines[0].split("free: ")[1].split("; estimated")[0]
    assert engine == f"continuous ({summary})"
    records = [json.loads(x) for x in (out / "generations.jsonl").read_text().splitlines()]
    assert len(records) == 6


def test_no_plan_when_the_model_shape_is_unknown(tiny, monkeypatch):
    """A config the plan cannot read leaves the engine to size itself, as before."""
    plans = []

    def start(generation_config, prompts, config, plan=None, cuda_graph=None):
        plans.append(plan)
        return FakeManager(tiny.model)

    monkeypatch.setattr(tiny, "start_manager", start)
    monkeypatch.setattr(tiny, "model_shape", lambda: None, raising=False)
    results = tiny.generate(rows(3), GenerationConfig(max_new_tokens=4, temperature=0.0))
    assert plans == [None] and [r.extra["engine"] for r in results] == ["continuous"] * 3
    assert tiny.plans == ["continuous"]  # the pass ran with no plan


def test_pass_schedule_with_a_plan():
    from longform_eval.inference.backends.hf_passes import PassSchedule
    from longform_eval.inference.backends.memory_plan import GiB, ModelShape, Workload, plan_memory

    shape = ModelShape(
        layers=28, heads=28, kv_heads=4, head_dim=128, hidden=3584, intermediate=18944, vocab=152064, dtype_bytes=2
    )
    todo = {"a": [0] * 7000, "b": [0] * 3000, "c": [0] * 100, "d": [0] * 90}
    plan = plan_memory(shape, Workload(tuple(len(x) for x in todo.values()), 512), 64 * GiB)
    schedule = PassSchedule(plan, cuda_graph=None, on_cuda=True, max_new_tokens=512)
    assert schedule.graphs() is True and schedule.engine() == plan.engine() and schedule.rows(todo) == todo
    schedule.record(todo, ["b", "c", "d"], dict.fromkeys("bcd", "CUDA out of memory. Tried to allocate 1.04 GiB"))
    assert schedule.plan == plan.shrink(3000 + 512) and schedule.rows(todo) == todo  # the rows in flight, smaller
    assert schedule.plan.chunk == plan.chunk // 2 and "the next pass retries them with cache" in schedule.notes[-1]
    other = {"b": todo["b"], "c": todo["c"], "d": todo["d"]}
    schedule.record(other, list(other), dict.fromkeys(other, "Expected all tensors to be on the same device"))
    assert schedule.prompt_cap == 1500 and set(schedule.rows(other)) == {"c", "d"}  # not memory: the longest leave
    assert schedule.graphs() is False and schedule.plan.chunk == plan.chunk // 2  # and graphs go off (third pass)
    schedule.record({"c": todo["c"]}, ["c"], {"c": "CUDA out of memory"})
    assert schedule.finished and schedule.rows(todo) == {}  # a row failed alone: static batching
