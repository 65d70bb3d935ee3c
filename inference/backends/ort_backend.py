"""ONNX Runtime GenAI generation (`ort:FOLDER`, and the embedded model's default CPU runtime).

One request at a time on the CPU, each result handed on as it finishes. The prompt is built and tokenized with
the folder's Hugging Face tokenizer and chat template, exactly as the `hf` backend does, so that both runtimes
see the same tokens. A request's `json_schema` is enforced by onnxruntime-genai's guidance (llguidance): every
token is sampled under the grammar's mask, in compact JSON (a small model otherwise pads with whitespace until
its token limit).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..config import GenerationConfig
from .base import OnResult, Request, Result, deliver
from .hf_backend import cut_at_stop, prompt_text, templated
from .options import Count

STOP_WINDOW = 32  # tokens decoded to look for a stop string after each new token


class OrtGenAIBackend:
    def __init__(self, model: str, threads: Count | None = None):
        import onnxruntime_genai as og
        from transformers import AutoTokenizer

        self.og = og
        self.name = f"ort:{model}"
        config = og.Config(model)
        threads = threads or usable_cores()  # its own default used one of the two cores here
        config.overlay(json.dumps({"model": {"decoder": {"session_options": {"intra_op_num_threads": threads}}}}))
        self.model = og.Model(config)
        self.tokenizer = AutoTokenizer.from_pretrained(model)
        self.context_length = json.loads((Path(model) / "genai_config.json").read_text())["model"]["context_length"]

    def generate(self, requests: Sequence[Request], config: GenerationConfig, on_result: OnResult | None = None):
        results = []
        for request in requests:
            results += deliver([self.checked(request, config)], on_result)
        return results

    def checked(self, request: Request, config: GenerationConfig) -> Result:
        """A request the engine refuses (a prompt past the context, a grammar it rejects) is a failed call, logged
        and retried by the runner, not the end of the run."""
        try:
            return self.generate_one(request, config)
        except (RuntimeError, ValueError) as error:
            return Result(request.key, "", None, None, None, 0.0, error=f"onnxruntime-genai: {error}")

    def generate_one(self, request: Request, config: GenerationConfig) -> Result:
        began = time.perf_counter()
        text = prompt_text(self.tokenizer, request, config)
        ids = self.tokenizer(text, add_special_tokens=not templated(request, config))["input_ids"]
        if len(ids) >= self.context_length:
            raise ValueError(f"the prompt has {len(ids)} tokens; the model's context is {self.context_length}")
        limit = min(len(ids) + config.max_new_tokens, self.context_length)
        generator = self.og.Generator(self.model, self.params(request, config, limit))
        generator.append_tokens(ids)
        new: list[int] = []
        stopped = False
        while not generator.is_done() and not stopped:
            generator.generate_next_token()
            new.append(int(generator.get_next_tokens()[0]))
            stopped = bool(config.stop) and cut_at_stop(self.tail(new), config.stop)[1]
        text, stopped = cut_at_stop(self.tokenizer.decode(new, skip_special_tokens=True), config.stop)
        hit_limit = len(ids) + len(new) >= limit and not stopped
        return Result(
            key=request.key,
            text=text,
            finish_reason="length" if hit_limit else "stop",
            prompt_tokens=len(ids),
            completion_tokens=len(new),
            seconds=time.perf_counter() - began,
            extra={"engine": "onnxruntime-genai"},
        )

    def params(self, request: Request, config: GenerationConfig, limit: int) -> Any:
        params = self.og.GeneratorParams(self.model)
        params.set_search_options(**search_options(config, limit))
        if request.json_schema is not None:
            compact = {**request.json_schema, "x-guidance": {"whitespace_flexible": False}}
            params.set_guidance("json_schema", json.dumps(compact))
        return params

    def tail(self, new: list[int]) -> str:
        return self.tokenizer.decode(new[-STOP_WINDOW:], skip_special_tokens=True)

    def close(self) -> None:
        self.model = None


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
