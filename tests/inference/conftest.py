from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

TASKS = ("open_ended_qa", "summarization", "chat", "text_completion", "heuristic_text_generation")


def released(shared_data: Path, kind: str, model: str) -> list[dict]:
    folder = shared_data / "hellobench" / kind / "main_exp" / model
    records = []
    for task in TASKS:
        with gzip.open(folder / f"{task}_results.jsonl.gz", "rt", encoding="utf-8") as handle:
            records.extend(json.loads(line) for line in handle)
    return records


def write_replay(path: Path, pairs) -> Path:
    with path.open("w", encoding="utf-8") as handle:
        for key, text in pairs:
            handle.write(json.dumps({"key": key, "text": text}) + "\n")
    return path


@pytest.fixture(autouse=True)
def no_secret_registered(monkeypatch):
    """The secrets a backend registers stay for the whole process (a command's): each test starts with none."""
    from longform_eval.inference import secret_values

    monkeypatch.setattr(secret_values, "REGISTERED", secret_values.SecretValues())


@pytest.fixture(scope="session")
def gpt4o_replays(shared_data, tmp_path_factory):
    """Replay files: GPT-4o's released responses (as a model) and its released verdicts (as a judge)."""
    folder = tmp_path_factory.mktemp("replay")
    generations = write_replay(
        folder / "gen.jsonl", ((r["id"], r["response"]) for r in released(shared_data, "generations", "gpt4o_0806"))
    )
    verdicts = write_replay(
        folder / "judge.jsonl",
        (
            (r["id"], json.dumps(r["checklist_wise_evaluation"], ensure_ascii=False))  # the judge's JSON reply
            for r in released(shared_data, "judgements", "gpt4o_0806")
        ),
    )
    return generations, verdicts


def replayed_chat_run(replays: tuple[Path, Path], out: Path, limit: int) -> Path:
    """`out`, a finished run of the first `limit` HelloBench chat prompts: GPT-4o's released responses and verdicts."""
    from longform_eval.inference.cli import main

    generations, verdicts = replays
    assert main(chat_run(limit, f"replay:{generations}", f"replay:{verdicts}", str(out))) == 0
    return out


def chat_run(limit: int, model: str, judge: str, out: str, *extra: str) -> list[str]:
    """`longform-eval run` arguments for the first `limit` HelloBench chat prompts."""
    return [
        "run",
        "--benchmark",
        "hellobench:chat",
        "--limit",
        str(limit),
        "--model",
        model,
        "--judge",
        judge,
        *extra,
        "--out",
        out,
    ]


TINY_WORDS = ["<unk>", "<s>", "</s>", "<pad>", "hello", "world", "yes", "no"]


def save_tiny_llama(folder: Path, max_positions: int = 64, extra_words: tuple[str, ...] = ()) -> Path:
    """A 1-layer Llama with random weights and a word-level tokenizer that adds BOS (as Llama's does) and has a
    chat template of its own; saved to `folder` so that `hf:FOLDER` loads it like any model. `extra_words` extend
    the vocabulary (e.g. JSON punctuation for constrained decoding)."""
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers, processors
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    vocab = {w: i for i, w in enumerate(TINY_WORDS + list(extra_words))}
    core = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    core.pre_tokenizer = pre_tokenizers.Whitespace()
    core.post_processor = processors.TemplateProcessing(single="<s> $A", special_tokens=[("<s>", 1)])
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=core, bos_token="<s>", eos_token="</s>", pad_token="<pad>", unk_token="<unk>"
    )
    tokenizer.chat_template = "<s>{% for m in messages %}{{ m['content'] }} {% endfor %}"
    config = LlamaConfig(
        vocab_size=len(vocab),
        hidden_size=16,
        intermediate_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=max_positions,
        bos_token_id=1,
        eos_token_id=2,
        pad_token_id=3,
    )
    torch.manual_seed(0)
    LlamaForCausalLM(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def assert_intervals_hold(scores: dict, names: tuple[str, ...], value_of=None) -> None:
    """scores.json has a 95% interval {"low", "high", "se", "n"} for each figure in `names`, holding the figure."""
    value_of = value_of or (lambda name: scores[name])
    assert scores["interval_method"].startswith("95% t interval over")
    for name in names:
        interval = scores["intervals"][name]
        assert set(interval) - {"clipped"} == {"low", "high", "se", "n"}, name
        assert interval["low"] - 1e-9 <= value_of(name) <= interval["high"] + 1e-9, (name, interval)
        assert interval["se"] >= 0 and interval["n"] >= 1
