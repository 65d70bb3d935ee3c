"""LongBench-Write's prompt format: pred.py's raw `[INST]{prompt}[/INST]` for Llama models, reproduced byte for byte
under `--benchmark-arg prompt_format=upstream`, and the chat template on a Llama model listed as a deviation.

The Llama-style tokenizer is built here (no hub): byte-level BPE trained on the LongBench-Write prompts, a
post-processor that prepends `<|begin_of_text|>` as Llama 3's does, and a Llama-3-style chat template; it is saved
with a one-layer random-weight LlamaForCausalLM in a folder named like upstream's LongWriter-llama3.1-8b.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from longform_eval.inference.backends.base import Request
from longform_eval.inference.backends.hf_backend import HFBackend
from longform_eval.inference.benchmarks import create_benchmark
from longform_eval.inference.cli import main
from longform_eval.inference.config import GenerationConfig
from longform_eval.inference.runner.run import request_hash
from longform_eval.metric.longbench_write.generation import prompt_format_deviation

from .conftest import write_replay

BOS = "<|begin_of_text|>"
SPECIALS = [BOS, "<|end_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"]
LLAMA3_TEMPLATE = (
    "{{ bos_token }}{% for m in messages %}<|start_header_id|>{{ m['role'] }}<|end_header_id|>\n\n"
    "{{ m['content'] | trim }}<|eot_id|>{% endfor %}"
    "{% if add_generation_prompt %}<|start_header_id|>assistant<|end_header_id|>\n\n{% endif %}"
)
LIMIT = 3
DIMENSIONS = ("Relevance", "Accuracy", "Coherence", "Clarity", "Breadth and Depth", "Reading Experience")
JUDGE_REPLY = json.dumps({"Analysis": "ok", **dict.fromkeys(DIMENSIONS, 4)})


def upstream_rows(shared_data: Path) -> list[dict]:
    """The prompts as pred.py reads them (`longbench_write.jsonl`, json.loads per line)."""
    lines = (shared_data / "longbench_write/longbench_write.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def pred_py_input_ids(tokenizer, dt: dict) -> list[int]:
    """evaluation/pred.py for a model whose path contains "llama", its two lines, verbatim but for the device."""
    prompt = f"[INST]{dt['prompt']}[/INST]"
    return tokenizer(prompt, truncation=False, return_tensors="pt").input_ids[0].tolist()


def save_llama_style_model(folder: Path, texts: list[str]) -> Path:
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    core = Tokenizer(models.BPE())
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    core.decoder = decoders.ByteLevel()
    alphabet = pre_tokenizers.ByteLevel.alphabet()
    core.train_from_iterator(
        texts, trainers.BpeTrainer(vocab_size=800, special_tokens=SPECIALS, initial_alphabet=alphabet)
    )
    core.post_processor = processors.Sequence(
        [
            processors.ByteLevel(trim_offsets=False),
            processors.TemplateProcessing(single=f"{BOS} $A", special_tokens=[(BOS, core.token_to_id(BOS))]),
        ]
    )
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=core, bos_token=BOS, eos_token="<|eot_id|>", pad_token="<|end_of_text|>"
    )
    tokenizer.chat_template = LLAMA3_TEMPLATE
    ids = {name: core.token_to_id(name) for name in (BOS, "<|eot_id|>", "<|end_of_text|>")}
    config = LlamaConfig(
        vocab_size=core.get_vocab_size(),
        hidden_size=16,
        intermediate_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=8192,
        bos_token_id=ids[BOS],
        eos_token_id=ids["<|eot_id|>"],
        pad_token_id=ids["<|end_of_text|>"],
    )
    torch.manual_seed(0)
    LlamaForCausalLM(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def llama_folder(shared_data, tmp_path_factory) -> Path:
    texts = [dt["prompt"] for dt in upstream_rows(shared_data)]
    return save_llama_style_model(tmp_path_factory.mktemp("models") / "LongWriter-llama3.1-8b", texts)


@pytest.fixture(scope="module")
def judge_replay(tmp_path_factory) -> Path:
    replies = ((f"lbw_{i:03d}", JUDGE_REPLY) for i in range(LIMIT))
    return write_replay(tmp_path_factory.mktemp("judge") / "judge.jsonl", replies)


def lbw_args(shared_data: Path, model: str, judge: Path, out: Path, *extra: str) -> list[str]:
    return [
        *("run", "--benchmark", "longbench_write", "--limit", str(LIMIT)),
        *("--source", str(shared_data / "longbench_write"), "--model", model, "--judge", f"replay:{judge}"),
        *("--max-new-tokens", "3", "--out", str(out), *extra),
    ]


@pytest.mark.slow  # trains the tokenizer and runs the model: ~25 s
def test_upstream_format_is_pred_py_request_byte_for_byte(shared_data, llama_folder, judge_replay, tmp_path):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    out = tmp_path / "upstream"
    model = f"hf:{llama_folder}"
    extra = ("--model-arg", "device=cpu", "--model-arg", "dtype=float32", "--benchmark-arg", "prompt_format=upstream")
    assert main(lbw_args(shared_data, model, judge_replay, out, *extra)) == 0
    tokenizer = AutoTokenizer.from_pretrained(llama_folder)  # as pred.py loads it
    config = yaml.safe_load((out / "config.yaml").read_text())
    assert config["benchmark_args"] == {"prompt_format": "upstream"}
    generation = GenerationConfig(**config["generation"])
    records = {r["sample_id"]: r for r in map(json.loads, (out / "generations.jsonl").read_text().splitlines())}
    backend = HFBackend.from_loaded(AutoModelForCausalLM.from_pretrained(llama_folder), tokenizer, "cpu")
    for number, dt in enumerate(upstream_rows(shared_data)[:LIMIT]):
        request = Request(key=f"lbw_{number:03d}", prompt=f"[INST]{dt['prompt']}[/INST]")  # pred.py's text
        record = records[request.key]
        assert record["prompt_hash"] == request_hash(request, generation.model_dump(mode="json"))
        expected = pred_py_input_ids(tokenizer, dt)
        assert backend.token_ids(request, generation) == expected and expected[0] == tokenizer.bos_token_id
        assert record["prompt_tokens"] == len(expected)
        chat = tokenizer.apply_chat_template([{"role": "user", "content": dt["prompt"]}], add_generation_prompt=True)
        assert record["prompt_tokens"] != len(chat)  # not what the chat template would have sent
    scores = json.loads((out / "scores.json").read_text())
    assert prompt_format_deviation() not in scores["deviations"]


def test_the_benchmark_builds_pred_py_text_only_for_llama_model_names(shared_data):
    dt = upstream_rows(shared_data)[0]
    row = {"id": "lbw_000", "prompt": dt["prompt"]}
    upstream = {"prompt_format": "upstream"}
    llama = create_benchmark("longbench_write", args=upstream, model="meta-llama/Meta-Llama-3.1-8B-Instruct")
    assert llama.generation_request(row) == Request(key="lbw_000", prompt="[INST]" + dt["prompt"] + "[/INST]")
    glm = create_benchmark("longbench_write", args=upstream, model="THUDM/LongWriter-glm4-9b")  # pred.py: model.chat
    assert glm.generation_request(row).messages == ({"role": "user", "content": dt["prompt"]},)
    assert glm.deviations(judge_attempts=1) == [] and llama.deviations(judge_attempts=1) == []
    default = create_benchmark("longbench_write", model="/models/LongWriter-llama3.1-8b")
    assert default.generation_request(row).prompt is None
    assert default.deviations(judge_attempts=1) == [prompt_format_deviation()]


def test_the_chat_template_on_a_llama_model_is_a_listed_deviation(shared_data, judge_replay, tmp_path):
    outputs = ((f"lbw_{i:03d}", "word " * 100) for i in range(LIMIT))
    llama = write_replay(tmp_path / "Llama-3.1-8B-Instruct.jsonl", outputs)
    out = tmp_path / "chat"
    assert main(lbw_args(shared_data, f"replay:{llama}", judge_replay, out)) == 0
    scores = json.loads((out / "scores.json").read_text())
    assert prompt_format_deviation() in scores["deviations"]
    assert (
        "prompt_format=upstream" in prompt_format_deviation() and "[INST]{prompt}[/INST]" in prompt_format_deviation()
    )
    assert f"- {prompt_format_deviation()}" in (out / "report.md").read_text()
    assert yaml.safe_load((out / "config.yaml").read_text())["benchmark_args"] == {}  # the default is not written
    other = write_replay(tmp_path / "qwen2.5-7b.jsonl", ((f"lbw_{i:03d}", "word " * 100) for i in range(LIMIT)))
    assert main(lbw_args(shared_data, f"replay:{other}", judge_replay, tmp_path / "other")) == 0
    assert prompt_format_deviation() not in json.loads((tmp_path / "other/scores.json").read_text())["deviations"]


def test_an_unknown_prompt_format_is_one_line(shared_data, judge_replay, tmp_path, capsys):
    args = lbw_args(
        shared_data, "replay:x.jsonl", judge_replay, tmp_path / "bad", "--benchmark-arg", "prompt_format=inst"
    )
    assert main(args) == 2
    assert "--benchmark-arg prompt_format='inst': longbench_write:" in capsys.readouterr().err
