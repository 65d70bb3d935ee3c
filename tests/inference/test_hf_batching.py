"""The `hf` backend's engines on a tiny random Llama (CPU): continuous batching (through an engine double that
answers like transformers' ContinuousBatchingManager), static batching with `batch_size=auto`, out-of-memory
halving, and the retry on the static path of rows the continuous engine failed."""

from __future__ import annotations

import inspect
import json
from collections import deque

import pytest
import yaml

from longform_eval.inference.backends.base import Request
from longform_eval.inference.backends.hf_backend import HFBackend
from longform_eval.inference.backends.hf_batching import bytes_per_row, fitting_batch
from longform_eval.inference.backends.hf_passes import PassSchedule
from longform_eval.inference.cli import main
from longform_eval.inference.config import GenerationConfig

from .conftest import save_tiny_llama

torch = pytest.importorskip("torch")
requests_module = pytest.importorskip("transformers.generation.continuous_batching.requests")
GenerationOutput, RequestStatus = requests_module.GenerationOutput, requests_module.RequestStatus


@pytest.fixture(scope="module")
def tiny_folder(tmp_path_factory):
    return save_tiny_llama(tmp_path_factory.mktemp("tiny_llama_batching"), max_positions=16384)


@pytest.fixture(scope="module")
def tiny(tiny_folder):
    return HFBackend(str(tiny_folder), device="cpu", dtype="float32")


OUT_OF_MEMORY = "CUDA out of memory. Tried to allocate 17.60 GiB"


def engine_kind(result) -> str:
    """continuous or static (a continuous row's engine also names the memory plan it ran with)."""
    return result.extra["engine"].split(" ")[0]


class FakeManager:
    """Answers like ContinuousBatchingManager: add_request, get_result (GenerationOutput), is_running, stop.

    Rows are generated greedily one at a time with the real model; rows in `fail` come back FAILED with an error,
    rows in `short` come back FINISHED but cut short (no EOS, under the limit), rows in `lost` never come back.
    A prompt longer than `crash_over` tokens fails every row with one error (`crash`), as an error in the engine's
    loop does.
    """

    def __init__(self, model, fail=(), short=(), lost=(), crash_over=None, crash=OUT_OF_MEMORY):
        self.model, self.fail, self.short, self.lost = model, set(fail), set(short), set(lost)
        self.crash_over, self.crashed, self.crash = crash_over, False, crash
        self.outputs: deque = deque()
        self.added: list[str] = []
        self.stopped = False

    def add_request(self, input_ids, request_id, max_new_tokens):
        self.added.append(request_id)
        self.crashed |= self.crash_over is not None and len(input_ids) > self.crash_over
        if request_id in self.lost:
            return request_id
        with torch.inference_mode():
            out = self.model.generate(
                torch.tensor([input_ids]), max_new_tokens=max_new_tokens, do_sample=False, pad_token_id=3
            )
        tokens = out[0, len(input_ids) :].tolist()
        output = GenerationOutput(request_id=request_id, prompt_ids=list(input_ids), generated_tokens=tokens)
        output.status = RequestStatus.FINISHED
        if request_id in self.fail:
            output.status, output.error = RequestStatus.FAILED, "CUDA graph replay failed"
            output.generated_tokens = []
        if request_id in self.short:
            output.generated_tokens = [4]  # "hello", no EOS, under max_new_tokens
        self.outputs.append(output)
        return request_id

    def get_result(self, request_id=None, timeout=None):
        if not self.outputs:
            return None
        output = self.outputs.popleft()
        if self.crashed:
            output.status, output.error = RequestStatus.FAILED, self.crash
        return output

    def is_running(self):
        return bool(self.outputs)

    def stop(self, block=True, timeout=None, hard_stop=False):
        self.stopped = True


def use_engine_double(monkeypatch, backend, **faults):
    managers = []

    def start(generation_config, prompts, config, plan=None, cuda_graph=None):
        managers.append(FakeManager(backend.model, **faults))
        return managers[-1]

    monkeypatch.setattr(backend, "start_manager", start)
    return managers


def rows(n):
    return [Request(key=f"r{i}", prompt=" ".join(["hello", "world", "yes"][: 1 + i % 3] * (1 + i))) for i in range(n)]


CONFIG = GenerationConfig(max_new_tokens=6, temperature=0.0)


def static_results(backend, requests, config):
    """The static path alone, whatever engine the test set up."""
    ids = {r.key: backend.token_ids(r, config) for r in requests}
    return backend.generate_static(list(requests), ids, config, None)


def test_cpu_defaults_to_static_batches_of_four(tiny):
    assert tiny.batch_size == "auto" and tiny.auto_batch_size(CONFIG) == 4
    assert tiny.choose_engine(CONFIG)[0] == "static"
    results = tiny.generate(rows(5), CONFIG)
    assert [r.key for r in results] == [f"r{i}" for i in range(5)] and tiny.engine == "static"


def test_continuous_and_static_give_the_same_rows(tiny, monkeypatch):
    static = tiny.generate(rows(7), CONFIG)
    managers = use_engine_double(monkeypatch, tiny)
    monkeypatch.setattr(tiny, "engine_option", "continuous")
    seen = []
    continuous = tiny.generate(rows(7), CONFIG, on_result=seen.append)
    assert tiny.engine == "continuous" and managers and managers[0].stopped
    assert sorted(r.key for r in seen) == sorted(r.key for r in static)  # each row delivered once
    for a, b in zip(static, continuous, strict=True):
        assert (a.key, a.text, a.finish_reason, a.prompt_tokens) == (b.key, b.text, b.finish_reason, b.prompt_tokens)
        assert not b.error


def test_rows_the_engine_failed_are_retried_static_and_never_recorded_partial(tiny, monkeypatch):
    use_engine_double(monkeypatch, tiny, fail={"r1"}, short={"r3"}, lost={"r5"})
    monkeypatch.setattr(tiny, "engine_option", "continuous")
    static_batches = []
    original = tiny.generate_batch

    def spy(batch, prompts, config):
        static_batches.append([r.key for r in batch])
        return original(batch, prompts, config)

    monkeypatch.setattr(tiny, "generate_batch", spy)
    seen = []
    results = tiny.generate(rows(7), CONFIG, on_result=seen.append)
    assert sorted(k for batch in static_batches for k in batch) == ["r1", "r3", "r5"]
    assert sorted(r.key for r in seen) == [f"r{i}" for i in range(7)]  # once each
    expected = {r.key: r for r in static_results(tiny, rows(7), CONFIG)}
    for result in results:
        assert not result.error
        assert result.text == expected[result.key].text  # no row keeps the engine's partial text
        assert result.completion_tokens >= 1


def test_a_row_that_fails_on_both_paths_is_an_error_result(tiny, monkeypatch):
    use_engine_double(monkeypatch, tiny, fail={"r2"})
    monkeypatch.setattr(tiny, "engine_option", "continuous")
    original = tiny.generate_batch

    def no_memory_for_r2(batch, prompts, config):
        if any(r.key == "r2" for r in batch):
            raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")
        return original(batch, prompts, config)

    monkeypatch.setattr(tiny, "generate_batch", no_memory_for_r2)
    results = {r.key: r for r in tiny.generate(rows(4), CONFIG)}
    assert results["r2"].error.startswith("out of memory") and results["r2"].text == ""
    assert all(not r.error for k, r in results.items() if k != "r2")


def test_out_of_memory_halves_the_batch_without_losing_or_repeating_a_row(tiny, monkeypatch):
    attempts = []
    original = tiny.generate_batch

    def small_batches_only(batch, prompts, config):
        attempts.append(len(batch))
        if len(batch) > 2:
            raise torch.OutOfMemoryError("CUDA out of memory")
        return original(batch, prompts, config)

    monkeypatch.setattr(tiny, "generate_batch", small_batches_only)
    monkeypatch.setattr(tiny, "batch_size", 8)
    seen = []
    results = tiny.generate(rows(11), CONFIG, on_result=seen.append)
    assert sorted(r.key for r in seen) == sorted(f"r{i}" for i in range(11))
    assert [r.key for r in results] == [f"r{i}" for i in range(11)] and not any(r.error for r in results)
    # 8 -> 4 + 4 -> (2 + 2) + (2 + 2); the 3 rows left are batched at the halved size: 2 + 1
    assert attempts == [8, 4, 2, 2, 4, 2, 2, 2, 1]


def test_auto_batch_size_fits_the_kv_cache_in_the_budget():
    from transformers import Qwen2Config

    qwen7b = Qwen2Config(
        hidden_size=3584,
        intermediate_size=18944,
        num_hidden_layers=28,
        num_attention_heads=28,
        num_key_value_heads=4,
        vocab_size=152064,
    )
    kv_per_token = 2 * 28 * 4 * 128 * 2
    assert bytes_per_row(qwen7b, 0, 1000, 2) == kv_per_token * 1000 + 152064 * 8

    def per_row(n):
        return bytes_per_row(qwen7b, n, 512, 2)

    budget = 60 << 30
    short = fitting_batch(per_row, [300] * 500, budget, 256)
    assert short == 256
    long = fitting_batch(per_row, [300] * 10 + [9000] * 100, budget, 256)
    assert 1 <= long < 110 and per_row(9000) * long <= budget
    assert fitting_batch(per_row, [200_000], budget, 256) == 1


def test_cli_generate_with_no_options_on_cpu(tiny_folder, tmp_path, monkeypatch):
    args = ["generate", "--benchmark", "hellobench", "--limit", "6", "--max-new-tokens", "8"]
    out = tmp_path / "static"
    assert main([*args, "--model", f"hf:{tiny_folder}", "--out", str(out)]) == 0
    static = [json.loads(x) for x in (out / "generations.jsonl").read_text().splitlines()]
    assert len(static) == 6 and not (out / "failures.jsonl").is_file() or not (out / "failures.jsonl").read_text()
    assert yaml.safe_load((out / "config.yaml").read_text())["engine"] == "static"

    def start(self, generation_config, prompts, config, plan=None, cuda_graph=None):
        return FakeManager(self.model)

    monkeypatch.setattr(HFBackend, "start_manager", start)
    out = tmp_path / "continuous"
    model = ["--model", f"hf:{tiny_folder}", "--model-arg", "engine=continuous"]
    assert main([*args, *model, "--out", str(out)]) == 0
    continuous = [json.loads(x) for x in (out / "generations.jsonl").read_text().splitlines()]
    assert yaml.safe_load((out / "config.yaml").read_text())["engine"].startswith("continuous (cache ")
    assert sorted(r["sample_id"] for r in continuous) == sorted(r["sample_id"] for r in static)
    assert sorted(continuous[0]) == sorted(static[0])  # the same record keys


def test_stop_strings_keep_static_batching_and_say_why(tiny, monkeypatch):
    monkeypatch.setattr(tiny, "engine_option", "continuous")
    engine, why = tiny.choose_engine(CONFIG.model_copy(update={"stop": ("world",)}))
    assert engine == "static" and "stop" in why
    assert tiny.choose_engine(CONFIG)[0] == "continuous"


def test_the_installed_continuous_engine_runs_our_rows_on_cpu(tiny, monkeypatch):
    """The real ContinuousBatchingManager of the installed transformers (no double), forced onto the CPU."""
    config = GenerationConfig(max_new_tokens=4, temperature=0.0)
    static = {r.key: r for r in tiny.generate(rows(2), config)}  # auto on CPU: static
    assert tiny.engine == "static"
    monkeypatch.setattr(tiny, "engine_option", "continuous")
    seen = []
    results = tiny.generate(rows(2), config, on_result=seen.append)
    assert tiny.engine == "continuous" and sorted(r.key for r in seen) == ["r0", "r1"]
    for result in results:
        assert not result.error and list(result.extra) == ["engine"] and engine_kind(result) == "continuous"
        assert result.text == static[result.key].text and result.finish_reason == static[result.key].finish_reason


def test_a_pass_the_engine_fails_as_a_whole_is_followed_by_one_without_the_longest_prompts(tiny, monkeypatch):
    """An error of the engine's other than out of memory (which shrinks the plan: test_hf_plan_passes)."""
    managers = use_engine_double(monkeypatch, tiny, crash_over=12, crash="CUDA error: an illegal memory access")
    monkeypatch.setattr(tiny, "engine_option", "continuous")
    seen = []
    results = {r.key: r for r in tiny.generate(rows(7), CONFIG, on_result=seen.append)}
    lengths = {r.key: len(tiny.token_ids(r, CONFIG)) for r in rows(7)}
    assert lengths == {"r0": 2, "r1": 5, "r2": 10, "r3": 5, "r4": 11, "r5": 19, "r6": 8}
    assert managers[0].added[0] == "r5"  # longest first: the error shows at once
    assert len(managers) == 2 and sorted(managers[1].added) == ["r0", "r1", "r3", "r6"]  # cap 19 // 2 = 9
    engines = {k: engine_kind(r) for k, r in results.items()}
    assert engines == {"r0": "continuous", "r1": "continuous", "r3": "continuous", "r6": "continuous"} | {
        "r2": "static",
        "r4": "static",
        "r5": "static",
    }
    assert sorted(r.key for r in seen) == sorted(lengths) and not any(r.error for r in results.values())
    expected = {r.key: r.text for r in static_results(tiny, rows(7), CONFIG)}
    assert {k: r.text for k, r in results.items()} == expected


def test_an_engine_that_cannot_start_leaves_every_row_to_static_batching(tiny, monkeypatch):
    attempts = []

    def start(generation_config, prompts, config, plan=None, cuda_graph=None):
        attempts.append(sorted(len(p) for p in prompts))
        raise torch.OutOfMemoryError("CUDA out of memory while capturing graphs")

    monkeypatch.setattr(tiny, "start_manager", start)
    monkeypatch.setattr(tiny, "engine_option", "continuous")
    results = tiny.generate(rows(3), CONFIG)
    # out of memory: the same rows with smaller plans (cache 768 -> 256 tokens, chunk 32 -> 16), then, none left,
    # each next pass leaves out the prompts over half the longest failed
    assert attempts == [[2, 5, 10]] * 3 + [[2, 5], [2]]
    assert [r.extra["engine"] for r in results] == ["static"] * 3 and not any(r.error for r in results)
    assert tiny.engine == "static"


def test_pass_schedule():
    todo = {"a": [0] * 100, "b": [0] * 40, "c": [0] * 10, "d": [0] * 8}
    schedule = PassSchedule(plan=None, cuda_graph=None, on_cuda=True, max_passes=3)  # without a plan
    assert schedule.rows(todo) == todo and schedule.graphs() is True
    schedule.record(todo, list(todo), dict.fromkeys(todo, "CUDA out of memory"))
    assert schedule.prompt_cap == 50 and set(schedule.rows(todo)) == {"b", "c", "d"} and schedule.graphs() is True
    assert "4 rows at once" in schedule.notes[-1] and "at most 50 tokens" in schedule.notes[-1]
    taken = schedule.rows(todo)
    schedule.record(taken, ["b", "c", "d"], dict.fromkeys("bcd", "Expected all tensors on one device"))
    assert set(schedule.rows(todo)) == {"c", "d"} and schedule.graphs() is False  # third pass: graphs off
    schedule.record(schedule.rows(todo), ["c", "d"], dict.fromkeys("cd", "x"))
    assert schedule.finished and schedule.rows(todo) == {} and len(schedule.notes) == 2  # at most three passes

    asked = PassSchedule(plan=None, cuda_graph=True, on_cuda=True, passes=2)
    assert asked.graphs() is True  # graphs the user asked for stay on
    assert PassSchedule(plan=None, cuda_graph=None, on_cuda=False).graphs() is None

    dropped = PassSchedule(plan=None, cuda_graph=None, on_cuda=True)  # rows added after the crash never come back
    dropped.record(todo, ["a", "b", "c"], {"a": "CUDA out of memory", "b": "CUDA out of memory"})
    assert not dropped.finished and dropped.prompt_cap == 50

    for failed, errors in (
        (["a", "b"], {"a": "one error", "b": "another"}),  # rows failed one by one
        (["a", "b"], {}),  # rows cut short: no error of the engine's
        (["a"], {"a": "CUDA out of memory"}),  # a single row
    ):
        alone = PassSchedule(plan=None, cuda_graph=False, on_cuda=True)
        alone.record(todo, failed, errors)
        assert alone.finished and alone.rows(todo) == {}, (failed, errors)


ONE_ROW_AT_A_TIME = """
import sys
from longform_eval.inference.backends import hf_backend, hf_continuous
from longform_eval.inference.cli import main

def start_manager(self, generation_config, prompts, config, plan=None, cuda_graph=None):
    return hf_continuous.start_manager(
        self.model, generation_config, prompts, config, plan, use_cuda_graph=cuda_graph, max_requests_per_batch=1
    )

hf_backend.HFBackend.start_manager = start_manager
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.slow
def test_a_continuous_run_killed_mid_way_resumes_without_losing_or_repeating_a_row(tiny_folder, tmp_path):
    """The installed engine (one row in the batch at a time, so rows finish apart) under SIGKILL, then resumed."""
    import subprocess
    import sys

    from .test_resume import kill_when

    out = tmp_path / "run"
    args = ["generate", "--benchmark", "hellobench", "--limit", "8", "--max-new-tokens", "24", "--out", str(out)]
    args += ["--model", f"hf:{tiny_folder}", "--model-arg", "engine=continuous"]
    command = [sys.executable, "-c", ONE_ROW_AT_A_TIME, *args]
    log = out / "generations.jsonl"
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    kill_when(process, log, 2)
    before = log.read_text().split("\n")[:-1]  # the complete lines
    assert process.returncode == -9 and 2 <= len(before) < 8
    finished = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert finished.returncode == 0, finished.stderr[-2000:]
    after = log.read_text().splitlines()
    assert after[: len(before)] == before  # nothing written before the kill is rewritten
    ids = [json.loads(line)["sample_id"] for line in after]
    assert len(ids) == 8 and len(set(ids)) == 8
    assert yaml.safe_load((out / "config.yaml").read_text())["engine"].startswith("continuous (cache ")


def small_cache_options() -> dict:
    """A 64-token cache for the installed engine (`block_size` before transformers 5.2x, `page_size` after)."""
    from transformers.generation.configuration_utils import ContinuousBatchingConfig

    page = "page_size" if "page_size" in inspect.signature(ContinuousBatchingConfig).parameters else "block_size"
    return {"num_blocks": 4, page: 16, "max_batch_tokens": 64}


SMALL_CACHE = small_cache_options()


def test_the_installed_engine_failing_a_whole_pass_loses_no_row(tiny, monkeypatch):
    """The real engine with a 64-token cache: a longer prompt stops its loop ("No requests can be scheduled"), which
    fails every row of the pass; the next pass leaves that prompt out and it finishes on the static path."""
    from longform_eval.inference.backends import hf_continuous

    managers = []

    def small_cache(generation_config, prompts, config, plan=None, cuda_graph=None):
        managers.append(hf_continuous.start_manager(tiny.model, generation_config, prompts, config, **SMALL_CACHE))
        return managers[-1]

    monkeypatch.setattr(tiny, "start_manager", small_cache)
    monkeypatch.setattr(tiny, "engine_option", "continuous")
    config = GenerationConfig(max_new_tokens=4, temperature=0.0)
    requests = [*rows(3), Request(key="long", prompt=" ".join(["hello", "world"] * 60))]
    seen = []
    results = {r.key: r for r in tiny.generate(requests, config, on_result=seen.append)}
    assert {k: engine_kind(r) for k, r in results.items()} == {
        "r0": "continuous",
        "r1": "continuous",
        "r2": "continuous",
        "long": "static",
    }
    assert sorted(r.key for r in seen) == sorted(results) and not any(r.error for r in results.values())
    assert len(managers) == 2
    managers.clear()
    static = {r.key: r.text for r in static_results(tiny, requests, config)}
    assert {k: r.text for k, r in results.items()} == static


FREED_BEFORE_THE_NEXT_PASS = """
import json, sys, weakref
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer
from longform_eval.inference.backends import hf_continuous
from longform_eval.inference.config import GenerationConfig

folder, options = sys.argv[1], json.loads(sys.argv[2])
model = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32).eval()
tokenizer = AutoTokenizer.from_pretrained(folder)
config = GenerationConfig(max_new_tokens=4, temperature=0.0)
generation = hf_continuous.engine_generation_config(model, config, tokenizer)
managers = []

def start(generation_config, prompts):
    managers.append(weakref.ref(hf_continuous.start_manager(model, generation_config, prompts, config, **options)))
    return managers[-1]()

run = hf_continuous.ContinuousRun(tokenizer, generation, config, start)
done, failed = run.run({"short": [1, 4, 5], "long": [1] + [4, 5] * 60}, None)
print(json.dumps({"failed": sorted(failed), "alive": managers[0]() is not None}))
"""


def test_a_failed_engine_is_freed_before_the_next_pass(tiny_folder):
    """Its error's traceback holds the manager (and on CUDA its cache): gone when the pass returns. In a plain process:
    pytest's own captures keep tracebacks alive."""
    import subprocess
    import sys

    command = [sys.executable, "-c", FREED_BEFORE_THE_NEXT_PASS, str(tiny_folder), json.dumps(SMALL_CACHE)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.splitlines()[-1]) == {"failed": ["long", "short"], "alive": False}
