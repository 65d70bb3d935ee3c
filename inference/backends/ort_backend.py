"""ONNX Runtime generation (`ort:FOLDER`, and the embedded model's default CPU runtime).

Two engines (`engine=auto|batched|genai`). `batched` (ort_batched.py): onnxruntime runs the folder's decoder itself,
the rows of a call decode together and the prompt prefix they all share is computed once; it takes folders whose
attention is GroupQueryAttention with its cache exposed as past/present tensors, as the model builder writes them for
the CPU. `genai`: onnxruntime-genai's Generator, one request at a time, for any folder it runs. `auto` takes
`batched` where the folder allows it. Each result is handed on as it finishes.

The prompt is built and tokenized with the folder's Hugging Face tokenizer and chat template, exactly as the `hf`
backend does, so that every runtime sees the same tokens. A request's `json_schema` is enforced on every token, in
compact JSON (a small model otherwise pads with whitespace until its token limit): by xgrammar in `batched`, by
onnxruntime-genai's guidance (llguidance) in `genai`.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal, get_args

from longform_eval.common.plurals import counted

from ..config import GenerationConfig
from .base import OnResult, Request, Result, deliver
from .hf_backend import cut_at_stop, prompt_text, templated
from .options import Count

STOP_WINDOW = 32  # tokens decoded to look for a stop string after each new token
Engine = Literal["auto", "batched", "genai"]
ENGINES = get_args(Engine)
ENGINE_NAMES = {"batched": "onnxruntime, rows batched, shared prefix once", "genai": "onnxruntime-genai"}


class OrtGenAIBackend:
    """`ort:FOLDER`; options: `threads`, `batch_size` (rows decoded together, batched engine), `engine`."""

    def __init__(self, model: str, threads: Count | None = None, batch_size: Count = 8, engine: Engine = "auto"):
        from transformers import AutoTokenizer

        from .ort_decoder import end_token_ids, genai_settings, unsupported_reason

        if engine not in ENGINES:
            raise ValueError(f"engine={engine!r}: choose one of {', '.join(ENGINES)}")
        folder = Path(model)
        self.name = f"ort:{model}"
        self.tokenizer = AutoTokenizer.from_pretrained(model)
        settings = genai_settings(folder)
        self.context_length = settings["model"]["context_length"]
        self.end_ids = end_token_ids(settings)
        threads = threads or usable_cores()  # onnxruntime-genai's own default used one of the two cores here
        reason = "chosen" if engine == "genai" else unsupported_reason(folder, settings)
        if engine == "batched" and reason is not None:
            raise ValueError(f"engine=batched cannot run {model}: {reason}")
        self.engine = "genai" if reason is not None else "batched"
        if self.engine == "batched":
            from .ort_batched import BatchedEngine

            self.inner: Any = BatchedEngine(folder, settings, threads, batch_size, self.tokenizer)
        else:
            self.inner = GeneratorEngine(model, threads)

    def generate(self, requests: Sequence[Request], config: GenerationConfig, on_result: OnResult | None = None):
        results: list[Result | None] = [None] * len(requests)
        prompts = []
        for index, request in enumerate(requests):
            try:
                prompts.append((index, request, *self.prompt(request, config)))
            except ValueError as error:
                results[index] = deliver([failed(request, f"onnxruntime: {error}")], on_result)[0]
        if self.engine == "batched":
            index_of = {id(request): index for index, request, _, _ in prompts}

            def finish(row: Any) -> None:
                ended, error = row.stopped, row.error
                result = self.result(row.request, row.ids, row.new, row.limit, config, row.began, error, ended)
                results[index_of[id(row.request)]] = deliver([result], on_result)[0]

            rows = [(request, ids, limit) for _, request, ids, limit in prompts]
            self.inner.run(rows, config, lambda row: self.stop_hit(row.new, config), finish)
        else:
            for index, request, ids, limit in prompts:
                results[index] = deliver([self.generated_alone(request, ids, limit, config)], on_result)[0]
        return results

    def prompt(self, request: Request, config: GenerationConfig) -> tuple[list[int], int]:
        """The prompt's token ids and the length (prompt and new tokens) the row may reach; a ValueError if the
        prompt is empty or fills the context: a failed call, logged and retried by the runner, not the run's end."""
        text = prompt_text(self.tokenizer, request, config)
        ids = self.tokenizer(text, add_special_tokens=not templated(request, config))["input_ids"]
        if not ids:  # a model has no logits to start from (Qwen's tokenizer adds no BOS to a raw prompt)
            raise ValueError("the prompt has no tokens")
        if len(ids) >= self.context_length:
            raise ValueError(
                f"the prompt has {counted(len(ids), 'token')}; the model's context is {self.context_length}"
            )
        return ids, min(len(ids) + config.max_new_tokens, self.context_length)

    def generated_alone(self, request: Request, ids: list[int], limit: int, config: GenerationConfig) -> Result:
        began = time.perf_counter()
        try:
            new = self.inner.generate(request, ids, limit, config, lambda tokens: self.stop_hit(tokens, config))
        except (RuntimeError, ValueError) as error:  # a grammar the engine rejects, for one
            return failed(request, f"onnxruntime-genai: {error}")
        return self.result(request, ids, new, limit, config, began, ended=bool(new) and new[-1] in self.end_ids)

    def result(
        self,
        request: Request,
        ids: list[int],
        new: list[int],
        limit: int,
        config: GenerationConfig,
        began: float,
        error: str | None = None,
        ended: bool = False,
    ) -> Result:
        """`ended`: the row stopped on its own (an end token, its grammar's end), so it is no "length" even where
        that came at its last allowed token."""
        if error is not None:
            return failed(request, error)
        text, stopped = cut_at_stop(self.tokenizer.decode(new, skip_special_tokens=True), config.stop)
        return Result(
            key=request.key,
            text=text,
            finish_reason="length" if len(ids) + len(new) >= limit and not (stopped or ended) else "stop",
            prompt_tokens=len(ids),
            completion_tokens=len(new),
            seconds=time.perf_counter() - began,
            extra={"engine": ENGINE_NAMES[self.engine]},
        )

    def stop_hit(self, new: list[int], config: GenerationConfig) -> bool:
        if not config.stop:
            return False
        return cut_at_stop(self.tokenizer.decode(new[-STOP_WINDOW:], skip_special_tokens=True), config.stop)[1]

    def close(self) -> None:
        self.inner = None


class GeneratorEngine:
    """onnxruntime-genai's Generator, one request at a time."""

    def __init__(self, model: str, threads: int):
        import onnxruntime_genai as og

        self.og = og
        config = og.Config(model)
        config.overlay(json.dumps({"model": {"decoder": {"session_options": {"intra_op_num_threads": threads}}}}))
        self.model = og.Model(config)

    def generate(self, request: Request, ids: list[int], limit: int, config: GenerationConfig, stop_hit) -> list[int]:
        generator = self.og.Generator(self.model, self.params(request, config, limit))
        generator.append_tokens(ids)
        new: list[int] = []
        while not generator.is_done() and not (new and stop_hit(new)):
            generator.generate_next_token()
            new.append(int(generator.get_next_tokens()[0]))
        return new

    def params(self, request: Request, config: GenerationConfig, limit: int) -> Any:
        params = self.og.GeneratorParams(self.model)
        params.set_search_options(**search_options(config, limit))
        if request.json_schema is not None:
            compact = {**request.json_schema, "x-guidance": {"whitespace_flexible": False}}
            params.set_guidance("json_schema", json.dumps(compact))
        return params


def failed(request: Request, error: str) -> Result:
    return Result(request.key, "", None, None, None, 0.0, error=error)


def usable_cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def search_options(config: GenerationConfig, max_length: int) -> dict[str, Any]:
    """Greedy at temperature 0; unset top_p/top_k keep the folder's own search settings."""
    options: dict[str, Any] = {"max_length": max_length, "do_sample": config.temperature > 0}
    if config.temperature > 0:
        options["temperature"] = config.temperature
        options.update({k: v for k, v in (("top_p", config.top_p), ("top_k", config.top_k)) if v is not None})
    if config.seed is not None:
        options["random_seed"] = config.seed
    return options
