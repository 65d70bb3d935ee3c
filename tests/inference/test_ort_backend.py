"""The `ort` backend: its batched engine on a tiny random-weight Qwen2 exported as the embedded model is (int4, CPU,
and the default int8-dynamic),
its sampling, its reads (the folder's settings and the kept grammars, through the guarded reader), the packages it
declares, and the export's one parse of the GGUF.

The batched engine's rows decode together from one right-padded cache, after a shared prefix computed once: each row
must get the tokens it gets alone, and the tokens onnxruntime-genai's Generator gives it (greedy), whatever the
batch, and its grammar must hold it to the schema (a random model writes every string to its longest).
"""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from packaging.requirements import Requirement

from longform_eval.common.guarded import UnreadableFile
from longform_eval.common.install import install_lines
from longform_eval.inference.backends import MissingExtraError, create_backend
from longform_eval.inference.backends.base import Request
from longform_eval.inference.backends.ort_decoder import Shape
from longform_eval.inference.config import GenerationConfig, ModelSpec
from longform_eval.metric import Unscored
from longform_eval.metric.helloeval.parser import REASON_CHARS, parse_verdict, verdict_schema
from longform_eval.metric.longgenbench.judge import YES_NO_SCHEMA
from longform_eval.registry import backend_declaration, requirements

pytest.importorskip("onnxruntime_genai", reason="the ort backend is installed with longform-eval[local]")
pytest.importorskip("xgrammar", reason="the batched engine's grammars are installed with longform-eval[local]")

TESTS = Path(__file__).resolve().parents[1]
MODELS = TESTS.parents[1] / "shared" / "models"  # the default model's config and tokenizer, beside the checkout
# a long instruction every prompt starts with, as the judge prompts do: the shared prefix is computed once
SYSTEM = {"role": "system", "content": "You grade answers. " + "Be strict but fair in every judgement. " * 6}


@pytest.fixture(scope="module")
def tiny_onnx(tmp_path_factory) -> Path:
    from longform_eval.inference.backends.onnx_export import build_onnx

    spec = importlib.util.spec_from_file_location("tiny_qwen", TESTS / "vllm_engine" / "tiny_qwen.py")
    tiny_qwen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tiny_qwen)
    scratch = tmp_path_factory.mktemp("tiny-onnx")
    build_onnx(tiny_qwen.build_tiny_qwen(MODELS, scratch / "hf"), scratch / "onnx", scratch / "cache", "int4")
    return scratch / "onnx"


@pytest.fixture(scope="module")
def tiny_int8_dynamic(tiny_onnx) -> Path:
    """The same tiny model as the embedded one's default export is: built in fp32, then every MatMul int8."""
    from longform_eval.inference.backends.onnx_export import build_onnx, quantize_int8_dynamic

    scratch = tiny_onnx.parent
    build_onnx(scratch / "hf", scratch / "fp32", scratch / "cache", "fp32")
    quantize_int8_dynamic(scratch / "fp32", scratch / "int8-dynamic")
    return scratch / "int8-dynamic"


@pytest.fixture(autouse=True)
def grammar_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LONGFORM_EVAL_MODELS", str(tmp_path / "models"))
    return tmp_path / "models" / "grammars"


def backend(folder: Path, **options):
    from longform_eval.inference.backends.ort_backend import OrtGenAIBackend

    return OrtGenAIBackend(str(folder), threads=1, **options)


def chats(*questions: str) -> list[Request]:
    return [Request(f"q{i}", messages=(SYSTEM, {"role": "user", "content": q})) for i, q in enumerate(questions)]


QUESTIONS = ("Name a colour.", "Write a haiku about the sea, then explain it at length.", "2+2?", "Why?" * 30)


def outputs(results) -> list[tuple]:
    return [(r.key, r.text, r.completion_tokens, r.finish_reason, r.error) for r in results]


def test_rows_decoded_together_get_their_tokens_alone_and_the_generators(tiny_onnx):
    greedy = GenerationConfig(max_new_tokens=12, temperature=0.0)
    together = backend(tiny_onnx, batch_size=4)
    assert together.engine == "batched"
    prefix = together.inner.shared_prefix([together.prompt(r, greedy)[0] for r in chats(*QUESTIONS)])
    assert prefix is not None and prefix[1] > 40  # the system message is computed once
    batched = together.generate(chats(*QUESTIONS), greedy)
    alone = backend(tiny_onnx, batch_size=1).generate(chats(*QUESTIONS), greedy)  # more rows than slots: refilled
    generator = backend(tiny_onnx, engine="genai").generate(chats(*QUESTIONS), greedy)
    assert outputs(batched) == outputs(alone) == outputs(generator)
    assert {r.finish_reason for r in batched} == {"length"} and {r.completion_tokens for r in batched} == {12}
    assert batched[0].extra["engine"] != generator[0].extra["engine"] == "onnxruntime-genai"


def test_the_default_int8_dynamic_export_runs_on_both_engines_and_repeats_its_tokens(tiny_int8_dynamic):
    import onnx

    graph = onnx.load(tiny_int8_dynamic / "model.onnx", load_external_data=False).graph
    kinds = {node.op_type for node in graph.node}
    assert "MatMulInteger" in kinds and "MatMulNBits" not in kinds and "GroupQueryAttention" in kinds
    greedy = GenerationConfig(max_new_tokens=12, temperature=0.0)
    together = backend(tiny_int8_dynamic, batch_size=4)
    assert together.engine == "batched"
    batched = together.generate(chats(*QUESTIONS), greedy)
    assert outputs(together.generate(chats(*QUESTIONS), greedy)) == outputs(batched)  # the same call, the same tokens
    assert all(r.error is None and r.completion_tokens == 12 for r in batched)
    # activations are quantized per tensor, so a row's tokens may differ alone and beside others (documented)
    generator = backend(tiny_int8_dynamic, engine="genai").generate(chats(*QUESTIONS), greedy)
    assert all(r.error is None and r.completion_tokens == 12 for r in generator)


def test_constrained_and_free_rows_share_steps_and_keep_their_own_random_streams(tiny_onnx, grammar_cache):
    questions = ("Rate the answer 'Paris': 1. correct 2. brief", "Is Paris in France?", "Tell a story.")
    requests = [
        Request("verdict", messages=(SYSTEM, {"role": "user", "content": questions[0]}), json_schema=verdict_schema(2)),
        Request("yes-no", messages=(SYSTEM, {"role": "user", "content": questions[1]}), json_schema=YES_NO_SCHEMA),
        Request("free", messages=(SYSTEM, {"role": "user", "content": questions[2]})),
    ]
    sampled = GenerationConfig(max_new_tokens=400, temperature=0.8, seed=7)
    batched = backend(tiny_onnx, batch_size=3).generate(requests, sampled)
    assert outputs(batched) == outputs(backend(tiny_onnx, batch_size=1).generate(requests, sampled))
    verdict, yes_no, free = batched
    reasons = [item["reason"] for item in json.loads(verdict.text)]
    assert not isinstance(parse_verdict(verdict.text, 2).verdict, Unscored), verdict.text
    assert max(map(len, reasons)) <= REASON_CHARS  # the schema's maxLength holds beside its pattern
    assert verdict.text.startswith('[{"checklist_id":') and '", "' not in verdict.text  # compact, as genai writes
    assert json.loads(yes_no.text) in ("yes", "no") and verdict.finish_reason == yes_no.finish_reason == "stop"
    assert free.completion_tokens == 400 and free.finish_reason == "length"  # it went on after the others ended
    assert len(list(grammar_cache.glob("*.json.gz"))) == 2  # each schema compiled once, kept for the next run


def test_a_kept_grammar_is_read_back_but_never_through_a_link(tiny_onnx, grammar_cache, tmp_path):
    from transformers import AutoTokenizer

    from longform_eval.inference.backends.hf_grammar import GrammarCompiler

    tokenizer = AutoTokenizer.from_pretrained(tiny_onnx)
    vocabulary = json.loads((tiny_onnx / "genai_config.json").read_text())["model"]["vocab_size"]
    GrammarCompiler(tokenizer, vocabulary, grammar_cache).compiled(YES_NO_SCHEMA)
    (kept,) = grammar_cache.glob("*.json.gz")

    def compiled_anew() -> bool:
        compiler = GrammarCompiler(tokenizer, vocabulary, grammar_cache)
        compiles = []
        compiler.compile = lambda schema, key: compiles.append(schema) or "compiled"
        compiler.compiled(YES_NO_SCHEMA)
        return compiles == [YES_NO_SCHEMA]

    assert not compiled_anew()  # read back from the cache
    elsewhere = kept.rename(tmp_path / "elsewhere.json.gz")
    kept.symlink_to(elsewhere)
    assert compiled_anew()  # a link in the cache is not followed
    kept.unlink()
    kept.write_bytes(b"not gzip")
    assert compiled_anew()  # nor is a damaged entry an error


def test_a_grammar_that_cannot_be_kept_is_still_used(tiny_onnx, grammar_cache, monkeypatch):
    from transformers import AutoTokenizer

    from longform_eval.inference.backends import hf_grammar

    def disk_full(path, data):
        raise OSError(28, "No space left on device", str(path))

    monkeypatch.setattr(hf_grammar, "write_bytes_atomic", disk_full)
    vocabulary = json.loads((tiny_onnx / "genai_config.json").read_text())["model"]["vocab_size"]
    compiler = hf_grammar.GrammarCompiler(AutoTokenizer.from_pretrained(tiny_onnx), vocabulary, grammar_cache)
    assert compiler.compiled(YES_NO_SCHEMA) is not None and not list(grammar_cache.glob("*.json.gz"))


def test_a_stop_string_ends_its_row_alone(tiny_onnx):
    greedy = GenerationConfig(max_new_tokens=16, temperature=0.0)
    model = backend(tiny_onnx)
    first, second = model.generate(chats(*QUESTIONS[:2]), greedy)
    stop = first.text[len(first.text) // 2 :][:3]
    cut, other = model.generate(chats(*QUESTIONS[:2]), greedy.model_copy(update={"stop": (stop,)}))
    assert (cut.text, cut.finish_reason) == (first.text.split(stop)[0], "stop") and cut.completion_tokens < 16
    assert other.text == second.text.split(stop)[0]


def test_a_prompt_past_the_context_fails_alone(tiny_onnx):
    model = backend(tiny_onnx)
    model.context_length = 60
    long, short = model.generate(
        [Request("long", prompt="word " * 80), Request("short", prompt="Hello")], GenerationConfig(max_new_tokens=3)
    )
    assert long.error and "81 tokens" in long.error and not long.text
    assert short.error is None and short.completion_tokens == 3


def test_a_folder_the_batched_engine_cannot_run_goes_to_the_generator(tiny_onnx, tmp_path):
    from longform_eval.inference.backends.ort_decoder import genai_settings, unsupported_reason

    other = Path(shutil.copytree(tiny_onnx, tmp_path / "other"))
    config = json.loads((other / "genai_config.json").read_text())
    config["model"]["decoder"]["inputs"]["position_ids"] = "position_ids"
    (other / "genai_config.json").write_text(json.dumps(config))
    assert "other inputs" in unsupported_reason(other, genai_settings(other))
    assert unsupported_reason(tiny_onnx, genai_settings(tiny_onnx)) is None
    with pytest.raises(ValueError, match="engine=batched cannot run .*other inputs"):
        backend(other, engine="batched")
    assert backend(tiny_onnx, engine="genai").engine == "genai"


NAN_AT = 6  # a row whose cache holds this many tokens gets NaN logits from FakeDecoder


class FakeDecoder:
    """A model for the engine's bookkeeping alone: one likely token per row (never 0, the end token), NaN logits
    for a row whose cache holds NAN_AT tokens."""

    shape = Shape(layers=1, kv_heads=1, head_size=1, dtype=np.float32)
    vocab_size = 8

    def __init__(self, folder, settings, threads):
        pass

    def forward(self, cache, slots, tokens, lengths) -> np.ndarray:
        logits = np.full((len(lengths), self.vocab_size), -30.0, dtype=np.float32)
        for row, length in enumerate(lengths):
            logits[row, 1 + (length + tokens.shape[1]) % 7] = 5.0
            if length == NAN_AT:
                logits[row] = np.nan
        return logits


class FakeTokenizer:
    def __call__(self, text: str, add_special_tokens: bool = True) -> dict:
        return {"input_ids": [1 + ord(character) % 7 for character in text]}

    def decode(self, ids: list[int], skip_special_tokens: bool = True) -> str:
        return "".join(map(str, ids))


def fake_backend(monkeypatch, end_token: int = 0):
    from longform_eval.inference.backends import ort_batched
    from longform_eval.inference.backends.ort_backend import OrtGenAIBackend

    monkeypatch.setattr(ort_batched, "DecoderModel", FakeDecoder)
    model = object.__new__(OrtGenAIBackend)
    model.name, model.engine, model.context_length, model.tokenizer = "ort:fake", "batched", 64, FakeTokenizer()
    settings = {"model": {"eos_token_id": end_token}}
    model.inner = ort_batched.BatchedEngine(Path("fake"), settings, 1, 4, model.tokenizer)
    return model


def test_an_empty_prompt_fails_alone(monkeypatch):
    requests = [Request("empty", prompt=""), Request("short", prompt="Hi")]
    empty, short = fake_backend(monkeypatch).generate(requests, GenerationConfig(max_new_tokens=3))
    assert empty.error == "onnxruntime: the prompt has no tokens" and not empty.text
    assert short.error is None and short.completion_tokens == 3


@pytest.mark.parametrize("temperature", [0.0, 0.8])
def test_nan_logits_at_a_step_fail_their_row_alone_and_the_others_go_on(monkeypatch, temperature):
    requests = [Request("nan", prompt="Hello"), Request("fine", prompt="Hi there, friend")]
    config = GenerationConfig(max_new_tokens=4, temperature=temperature, seed=1)
    broken, fine = fake_backend(monkeypatch).generate(requests, config)
    assert broken.error == "onnxruntime: the model's logits hold NaN" and not broken.text
    assert fine.error is None and fine.completion_tokens == 4 and fine.finish_reason == "length"


def test_sampling_keeps_to_the_top_k_leaves_out_masked_tokens_and_repeats_with_its_seed():
    from longform_eval.inference.backends.ort_sampling import RowSampler

    logits = np.linspace(0.0, 10.0, 1000, dtype=np.float32)  # the higher the id, the likelier
    logits[995:] = -np.inf  # masked
    hot = GenerationConfig(temperature=5.0, seed=3)
    draws = [RowSampler(hot, (20, 1.0)).sample(logits) for _ in range(3)]
    sampler = RowSampler(hot, (20, 1.0))
    many = [sampler.sample(logits) for _ in range(300)]
    assert len(set(draws)) == 1 and many[0] == draws[0]  # the same seed, the same stream
    assert all(975 <= token < 995 for token in many) and len(set(many)) > 10
    assert RowSampler(GenerationConfig(temperature=0.0), (20, 1.0)).choose(logits.copy()) == 994


def test_the_export_parses_the_gguf_once(monkeypatch):
    import gguf

    from longform_eval.inference.backends.onnx_export import gguf_parsed_once

    opened = []

    class Reader:
        def __init__(self, path):
            opened.append(path)

    monkeypatch.setattr(gguf, "GGUFReader", Reader)
    with gguf_parsed_once():
        assert gguf.GGUFReader("model.gguf") is gguf.GGUFReader("model.gguf")
    assert opened == ["model.gguf"] and gguf.GGUFReader is Reader


def test_a_model_folder_s_settings_are_read_through_the_guard(tmp_path):
    from longform_eval.inference.backends.ort_decoder import genai_settings

    with (tmp_path / "genai_config.json").open("wb") as handle:
        handle.truncate(2 << 20)  # sparse: 2 MiB of nothing, over the ceiling
    with pytest.raises(UnreadableFile, match=r"genai_config.json: larger than 1048576 bytes \(the ceiling for a model"):
        genai_settings(tmp_path)
    (tmp_path / "genai_config.json").write_text('{"model": {"context_length": ' + "9" * 30 + "}}")
    with pytest.raises(ValueError, match="an integer of 30 digits"):
        genai_settings(tmp_path)


def test_the_local_and_hf_extras_install_what_their_backends_declare_and_a_missing_one_is_named(monkeypatch):
    tomllib = pytest.importorskip("tomllib", reason="Python 3.11 reads pyproject.toml")
    pyproject = tomllib.loads((TESTS.parent / "pyproject.toml").read_text())
    for extra_name, backends in (("local", ("ort", "local")), ("hf", ("hf",))):
        extra = [Requirement(line) for line in pyproject["project"]["optional-dependencies"][extra_name]]
        floors = {r.name: next(iter(r.specifier)).version for r in extra}
        for name in backends:
            requires = dict(backend_declaration(name).requires)
            assert {dist: floors.get(dist) for dist in requires} == requires
    assert "xgrammar" in dict(backend_declaration("hf").requires)  # its JSON schemas' logits processor
    assert {"onnxruntime", "onnx", "xgrammar"} <= set(dict(backend_declaration("ort").requires))
    absent = {"onnxruntime", "xgrammar"}
    found = requirements.installed_version
    monkeypatch.setattr(requirements, "installed_version", lambda dist: None if dist in absent else found(dist))
    with pytest.raises(MissingExtraError) as raised:
        create_backend(ModelSpec(backend="ort", model="any-folder"))
    assert str(raised.value).splitlines() == [
        "backend 'ort' needs onnxruntime>=1.31 (installed: not installed),",
        "xgrammar>=0.1.20 (installed: not installed):",
        *(f"  {command}" for command in install_lines("local")),
    ]


def test_a_row_that_ends_on_its_last_allowed_token_is_no_length_cut(monkeypatch):
    config, request = GenerationConfig(max_new_tokens=3), Request("short", prompt="Hi")
    (cut,) = fake_backend(monkeypatch).generate([request], config)
    assert cut.finish_reason == "length" and cut.completion_tokens == 3
    last = int(cut.text[-1])  # FakeTokenizer decodes each id as its digit
    (ended,) = fake_backend(monkeypatch, end_token=last).generate([request], config)
    assert ended.finish_reason == "stop" and ended.completion_tokens == 3
