"""transformers `generate`: batched, left padding, chat template on or off; data parallel with accelerate.

Under `accelerate launch`, the runner gives each process its share of the requests (PartialState) and rank 0
merges the records; this class only generates what it is given, on the process's device.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from ..config import GenerationConfig
from .base import OnResult, Request, Result, deliver


class HFBackend:
    def __init__(
        self,
        model: str,
        batch_size: int = 4,
        dtype: str = "auto",
        device: str | None = None,
        gguf_file: str | None = None,
        trust_remote_code: bool = False,
        threads: int | None = None,
    ):
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        if threads:
            torch.set_num_threads(int(threads))
        self.name = f"hf:{model}"
        self.batch_size = int(batch_size)
        options: dict[str, Any] = {"trust_remote_code": trust_remote_code}
        if gguf_file:
            options["gguf_file"] = gguf_file
        self.tokenizer = AutoTokenizer.from_pretrained(model, padding_side="left", **options)
        if self.tokenizer.pad_token is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        torch_dtype = getattr(torch, dtype) if dtype != "auto" else "auto"
        self.model = AutoModelForCausalLM.from_pretrained(model, dtype=torch_dtype, **options)
        self.device = device or default_device()
        self.model.to(self.device).eval()

    def prompt_text(self, request: Request, config: GenerationConfig) -> str:
        if request.prompt is not None:
            return request.prompt
        if not config.chat_template:
            return "\n\n".join(m["content"] for m in request.messages)
        return self.tokenizer.apply_chat_template(list(request.messages), tokenize=False, add_generation_prompt=True)

    def generate(self, requests: Sequence[Request], config: GenerationConfig, on_result: OnResult | None = None):
        """Batches of similar prompt length (less padding); results come back in request order."""
        texts = {r.key: self.prompt_text(r, config) for r in requests}
        ordered = sorted(requests, key=lambda r: len(texts[r.key]))
        done: dict[str, Result] = {}
        for start in range(0, len(ordered), self.batch_size):
            batch = ordered[start : start + self.batch_size]
            for result in deliver(self.generate_batch(batch, [texts[r.key] for r in batch], config), on_result):
                done[result.key] = result
        return [done[r.key] for r in requests]

    def generate_batch(self, batch: list[Request], texts: list[str], config: GenerationConfig) -> list[Result]:
        import torch

        began = time.perf_counter()
        ids = [
            self.tokenizer(text, add_special_tokens=not templated(request, config))["input_ids"]
            for request, text in zip(batch, texts, strict=True)
        ]
        encoded = self.tokenizer.pad({"input_ids": ids}, padding=True, return_tensors="pt").to(self.device)
        if config.seed is not None:
            torch.manual_seed(config.seed)
        with torch.inference_mode():
            output = self.model.generate(
                **encoded,
                **sampling_options(config),
                max_new_tokens=config.max_new_tokens,
                stop_strings=list(config.stop) or None,
                tokenizer=self.tokenizer,
                pad_token_id=self.tokenizer.pad_token_id,
            )
        seconds = (time.perf_counter() - began) / len(batch)
        prompt_length = encoded["input_ids"].shape[1]
        results = []
        for row, request in enumerate(batch):
            new = output[row, prompt_length:]
            new = new[new != self.tokenizer.pad_token_id]
            text = self.tokenizer.decode(new, skip_special_tokens=True)
            text, stopped = cut_at_stop(text, config.stop)
            hit_limit = len(new) >= config.max_new_tokens and not stopped
            results.append(
                Result(
                    key=request.key,
                    text=text,
                    finish_reason="length" if hit_limit else "stop",
                    prompt_tokens=int(encoded["attention_mask"][row].sum()),
                    completion_tokens=len(new),
                    seconds=seconds,
                )
            )
        return results

    def close(self) -> None:
        self.model = None


def templated(request: Request, config: GenerationConfig) -> bool:
    """Chat-templated text carries its own special tokens; a raw prompt gets the tokenizer's (BOS), as vLLM does."""
    return request.messages is not None and config.chat_template


def sampling_options(config: GenerationConfig) -> dict[str, Any]:
    """Greedy at temperature 0; unset top_p/top_k leave the model's own generation_config in force."""
    if config.temperature <= 0:
        return {"do_sample": False}
    options: dict[str, Any] = {"do_sample": True, "temperature": config.temperature}
    options.update({k: v for k, v in (("top_p", config.top_p), ("top_k", config.top_k)) if v is not None})
    return options


def cut_at_stop(text: str, stops: Sequence[str]) -> tuple[str, bool]:
    positions = [text.find(s) for s in stops if s and s in text]
    return (text[: min(positions)], True) if positions else (text, False)


def default_device() -> str:
    from accelerate import PartialState

    return str(PartialState().device)
