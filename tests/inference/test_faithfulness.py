"""Where the runner must do what the upstream code did: BOS on raw prompts, the model's own top_p/top_k,
same-seed judge retries, the judged text is the scored text, and vLLM saves as it goes."""

from __future__ import annotations

import json
import sys
import types

import pytest

from longform_eval.inference.api import RunSettings, build_config
from longform_eval.inference.backends.base import Request
from longform_eval.inference.backends.hf_backend import HFBackend, sampling_options
from longform_eval.inference.benchmarks import create_benchmark
from longform_eval.inference.cli import main
from longform_eval.inference.config import GenerationConfig
from longform_eval.inference.runner import Run

from .conftest import chat_run, save_tiny_llama, write_replay


@pytest.fixture(scope="module")
def tiny_llama(tmp_path_factory):
    """A 1-layer Llama with random weights and a word-level tokenizer that adds BOS, as Llama's does."""
    return HFBackend(str(save_tiny_llama(tmp_path_factory.mktemp("tiny_llama"))), device="cpu", dtype="float32")


def test_a_raw_prompt_gets_bos_and_chat_templated_text_no_second_one(tiny_llama):
    config = GenerationConfig(max_new_tokens=1, temperature=0.0, chat_template=True)
    raw, chat = tiny_llama.generate(
        [
            Request(key="raw", prompt="hello world"),
            Request(key="chat", messages=({"role": "user", "content": "hello world"},)),
        ],
        config,
    )
    assert raw.prompt_tokens == 3  # <s> hello world, as vLLM tokenizes a string prompt
    assert chat.prompt_tokens == 3  # the template's own <s>, not two
    (joined,) = tiny_llama.generate(
        [Request(key="plain", messages=({"role": "user", "content": "hello world"},))],
        config.model_copy(update={"chat_template": False}),
    )
    assert joined.prompt_tokens == 3  # messages without a template are raw text: BOS added


def test_hellobench_generation_leaves_top_p_and_top_k_to_the_model():
    paper = create_benchmark("hellobench").paper_settings().generation
    assert (paper.temperature, paper.max_new_tokens, paper.top_p, paper.top_k, paper.seed) == (
        0.8,
        16384,
        None,
        None,
        None,
    )
    assert sampling_options(paper) == {"do_sample": True, "temperature": 0.8}
    assert create_benchmark("hellobench", "length_constrained_16k").paper_settings().generation.max_new_tokens == 24000
    longgen = create_benchmark("longgenbench").paper_settings().generation
    assert sampling_options(longgen) == {"do_sample": True, "temperature": 0.95, "top_p": 0.95}


class Recording:
    """A backend factory that records the generation config of every call it passes on."""

    def __init__(self, factory):
        self.factory = factory
        self.configs = []

    def __call__(self, spec):
        inner = self.factory(spec)
        outer = self

        class Wrapper:
            name = inner.name

            def generate(self, requests, config, on_result=None):
                outer.configs.append(config)
                return inner.generate(requests, config, on_result)

            def close(self):
                inner.close()

        return Wrapper()


def test_judge_retries_ask_again_with_the_same_seed(gpt4o_replays, tmp_path):
    from longform_eval.inference.backends import create_backend

    generations, _ = gpt4o_replays
    judge = write_replay(tmp_path / "judge.jsonl", [])  # its verdict is written once the row is known
    args = chat_run(1, f"replay:{generations}", f"replay:{judge}", str(tmp_path / "run"))
    assert main(["generate", *args[1:]]) == 0
    run = Run.open(tmp_path / "run", judge={"backend": "replay", "model": str(judge)})
    write_replay(judge, [(run.rows[0]["id"], "not a verdict")])
    recording = Recording(create_backend)
    assert run.judge(recording) == 1
    assert len(recording.configs) == 3 and all(c == recording.configs[0] for c in recording.configs)
    assert recording.configs[0].seed == 42


def test_the_judge_sees_the_text_that_is_scored(shared_data, tmp_path):
    out = tmp_path / "lgb"
    model, judge = write_replay(tmp_path / "model.jsonl", []), write_replay(tmp_path / "judge.jsonl", [])
    run_args = ["run", "--benchmark", "longgenbench:short", "--subcategory", "Floor", "--limit", "1"]
    run_args += ["--model", f"replay:{model}", "--judge", f"replay:{judge}", "--out", str(out)]
    settings = RunSettings(subcategory=("Floor",), limit=1)
    config = build_config("longgenbench:short", f"replay:{model}", f"replay:{judge}", settings)
    row = Run.create(out, config, read_only=True).rows[0]  # the row, with nothing written
    shown, thought = sorted({c["subtask"] for c in row["checks"]})[:2]
    text = f"<think>#*# Floor {thought}: planning</think>\n#*# Floor {shown}: offices"
    write_replay(model, [(row["id"], text)])
    write_replay(judge, [(f"{row['id']}#{i}", "yes") for i in range(len(row["checks"]))])
    assert main(run_args) == 0
    judged = [json.loads(x) for x in (out / "judgements.jsonl").read_text().splitlines()]
    assert judged and all(j["stripped_think"] for j in judged)
    assert {row["checks"][j["meta"]["check"]]["subtask"] for j in judged} == {shown}  # not the floor only thought of
    scores = json.loads((out / "scores.json").read_text())
    assert row["prefix"] == "#*# Floor 1:"  # the output starts with floor 1's header
    assert scores["cr"] == pytest.approx(100 * 2 / row["num_subtasks"])  # floors 1 and `shown`, not `thought`


def test_vllm_backend_delivers_each_chunk_before_the_next(monkeypatch):
    events = []

    class FakeLLM:
        def __init__(self, **options):
            events.append(("init", options["model"]))

        def get_default_sampling_params(self):
            return types.SimpleNamespace(top_k=20, top_p=0.8)

        def generate(self, prompts, params):
            events.append(("generate", len(prompts)))
            if len([e for e in events if e[0] == "generate"]) == 3:
                raise RuntimeError("GPU fell over")
            completion = types.SimpleNamespace(text="ok", finish_reason="stop", token_ids=[1, 2])
            return [types.SimpleNamespace(outputs=[completion], prompt_token_ids=[1]) for _ in prompts]

    monkeypatch.setitem(sys.modules, "vllm", types.SimpleNamespace(LLM=FakeLLM, SamplingParams=dict))
    from longform_eval.inference.backends.vllm_backend import VLLMBackend

    backend = VLLMBackend("/models/x", chunk_size=2)
    params = backend.sampling(GenerationConfig(temperature=0.5, top_p=None, top_k=None, seed=1))
    assert (params.top_k, params.top_p, params.temperature, params.seed) == (20, 0.8, 0.5, 1)  # the model's own
    saved = []
    requests = [Request(key=str(i), prompt="p") for i in range(6)]
    with pytest.raises(RuntimeError, match="GPU fell over"):
        backend.generate(requests, GenerationConfig(), on_result=lambda r: (saved.append(r.key), events.append(r.key)))
    assert saved == ["0", "1", "2", "3"]  # two chunks saved before the third failed
    assert events[1:] == [("generate", 2), "0", "1", ("generate", 2), "2", "3", ("generate", 2)]
