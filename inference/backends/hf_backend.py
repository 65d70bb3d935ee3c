"""transformers generation: continuous batching on CUDA, batched static `generate` elsewhere; accelerate data parallel.

Under `accelerate launch`, the runner gives each process its share of the requests (PartialState) and rank 0
merges the records; this class only generates what it is given, on the process's device.

Engines (`engine=auto|continuous|static`): `auto` uses transformers' continuous batching on CUDA when the installed
version offers it and it can honour the generation settings (see `hf_continuous`), and static batching otherwise;
the reason for static batching is printed, and `self.engine` says which engine ran. Before the first continuous
step a memory plan (`memory_plan`, `hf_passes`) sizes the engine's KV cache, its prefill chunk and CUDA graphs from
the model, the rows and the free memory; it is printed in one line and each Result's `extra["engine"]` names it
(the runner records it in config.yaml). Rows too long for any plan go to static batching, named before the run. A
pass that runs out of memory is followed by one that retries the rows in flight with a smaller plan; the rows no pass
finished run on the static path, and only a row that fails there too comes back as an error Result.
`batch_size=auto` (static batching) fits the batch to free GPU memory; on CPU it is 4. `kv_memory` caps the
continuous engine's cache (share of free memory; never below the longest row), `cuda_graph` decides the graphs.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, Literal, get_args

from longform_eval.common.plurals import counted

from ..config import GenerationConfig
from .base import OnResult, Request, Result
from .hf_batching import (
    CPU_BATCH_SIZE,
    MAX_AUTO_BATCH,
    MEMORY_MARGIN,
    RESERVE_BYTES,
    StaticBatcher,
    bytes_per_row,
    fitting_batch,
    free_bytes,
    sampling_options,
)
from .options import Count, Share

Engine = Literal["auto", "continuous", "static"]
ENGINES = get_args(Engine)


class HFBackend:
    def __init__(
        self,
        model: str,
        batch_size: Count | Literal["auto"] = "auto",
        dtype: str = "auto",
        device: str | None = None,
        gguf_file: str | None = None,
        trust_remote_code: bool = False,
        threads: Count | None = None,
        engine: Engine = "auto",
        cuda_graph: bool | None = None,
        attn_implementation: str | None = None,
        kv_memory: Share | None = None,
    ):
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        if engine not in ENGINES:
            raise ValueError(f"engine={engine!r}: choose one of {', '.join(ENGINES)}")
        if batch_size != "auto" and int(batch_size) < 1:
            raise ValueError(f"batch_size={batch_size!r}: a positive number or auto")
        if threads:
            torch.set_num_threads(int(threads))
        self.name = f"hf:{model}"
        self.batch_size: int | str = batch_size if batch_size == "auto" else int(batch_size)
        self.engine_option = engine
        self.cuda_graph = cuda_graph
        self.kv_memory = kv_memory  # share of free GPU memory for the continuous engine's cache (None: its own)
        self.engine: str | None = None  # the engine of the last generate call: continuous or static
        self.plans: list[str] = []  # the memory plan of each continuous pass (as config.yaml records it)
        self.grammar = None  # a GrammarCompiler, made on the first request that carries a JSON schema
        options: dict[str, Any] = {"trust_remote_code": trust_remote_code}
        if gguf_file:
            options["gguf_file"] = gguf_file
        self.tokenizer = AutoTokenizer.from_pretrained(model, padding_side="left", **options)
        if self.tokenizer.pad_token is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        torch_dtype = getattr(torch, dtype) if dtype != "auto" else "auto"
        if attn_implementation:
            options["attn_implementation"] = attn_implementation
        self.model = AutoModelForCausalLM.from_pretrained(model, dtype=torch_dtype, **options)
        self.device = device or default_device()
        self.model.to(self.device).eval()

    @classmethod
    def from_loaded(cls, model: Any, tokenizer: Any, device: str, **options: Any) -> HFBackend:
        """A backend over a model already in memory (benchmarks build random-weight models from a config)."""
        backend = cls.__new__(cls)
        backend.name = f"hf:{getattr(model.config, '_name_or_path', '') or type(model).__name__}"
        size = options.get("batch_size", "auto")
        backend.batch_size = size if size == "auto" else int(size)
        backend.engine_option = options.get("engine", "auto")
        backend.cuda_graph = options.get("cuda_graph")
        backend.kv_memory = options.get("kv_memory")
        backend.engine = None
        backend.plans = []
        backend.grammar = None
        backend.tokenizer, backend.model, backend.device = tokenizer, model.eval(), device
        return backend

    def token_ids(self, request: Request, config: GenerationConfig) -> list[int]:
        text = prompt_text(self.tokenizer, request, config)
        return list(self.tokenizer(text, add_special_tokens=not templated(request, config))["input_ids"])

    # ----- engine choice ---------------------------------------------------------------------------------
    def choose_engine(self, config: GenerationConfig) -> tuple[str, str]:
        """(engine, why static) for this generation config on this device."""
        if self.engine_option == "static":
            return "static", "engine=static was asked for"
        from .hf_continuous import continuous_support

        why = continuous_support(self.model, config)
        if why is None and self.engine_option == "auto" and not str(self.device).startswith("cuda"):
            why = f"continuous batching is the default on CUDA only (device {self.device}; engine=continuous forces it)"
        return ("static", why) if why else ("continuous", "")

    def generate(self, requests: Sequence[Request], config: GenerationConfig, on_result: OnResult | None = None):
        """Results come back in request order; `on_result` is called for each row as soon as it is finished."""
        from ..progress import console

        ids = {r.key: self.token_ids(r, config) for r in requests}
        engine, why = self.choose_engine(config)
        if engine == "continuous" and any(r.json_schema is not None for r in requests):
            engine, why = "static", "a JSON schema constrains the output (a logits processor: static batching only)"
        self.engine = engine
        done: dict[str, Result] = {}
        todo = list(requests)
        if engine == "continuous":
            for result in self.generate_continuous(todo, ids, config, on_result):
                done[result.key] = result
            todo = [r for r in todo if r.key not in done]
            if todo:
                console.print(
                    f"[yellow]hf: {counted(len(todo), 'row')} {'goes' if len(todo) == 1 else 'go'} to static batching"
                )
        elif why and (self.engine_option == "continuous" or str(self.device).startswith("cuda")):
            console.print(f"hf: static batching: {why}", style="yellow", markup=False)
        for result in self.generate_static(todo, ids, config, on_result):
            done[result.key] = result
        continuous = any(str(r.extra.get("engine", "")).startswith("continuous") for r in done.values())
        if engine == "continuous" and not continuous:
            self.engine = "static"  # every row ended on the static path
        return [done[r.key] for r in requests]

    # ----- continuous batching ---------------------------------------------------------------------------
    def generate_continuous(self, requests, ids, config, on_result) -> list[Result]:
        """Continuous passes, planned before the first (`hf_passes`); the rows they do not finish are the caller's."""
        from .hf_passes import run_passes

        return run_passes(self, requests, ids, config, on_result)

    def start_manager(
        self, generation_config: Any, prompts: list, config: GenerationConfig, plan=None, cuda_graph=None
    ):
        """A started continuous-batching manager sized by `plan` (tests replace this with an engine double)."""
        from .hf_continuous import start_manager

        share = None if plan is not None else self.kv_memory  # a plan caps the cache by kv_memory itself
        return start_manager(
            self.model, generation_config, prompts, config, plan, use_cuda_graph=cuda_graph, max_memory_percent=share
        )

    def free_memory(self) -> int | None:
        """Free bytes on the device the plan may use (tests give a budget of their own)."""
        from .hf_passes import available_memory

        return available_memory(str(self.device))

    def model_shape(self):
        from .hf_passes import model_shape

        return model_shape(self.model)

    # ----- static batching -------------------------------------------------------------------------------
    def generate_static(self, requests, ids, config, on_result) -> list[Result]:
        """Batches of similar prompt length (less padding), sized by `batch_size`, halved on out-of-memory."""
        ordered = sorted(requests, key=lambda r: len(ids[r.key]))
        size = self.batch_size if self.batch_size != "auto" else self.auto_batch_size(config)
        batcher = StaticBatcher(lambda batch, prompts: self.generate_batch(batch, prompts, config), size)
        return batcher.run(ordered, ids, on_result)

    def auto_batch_size(self, config: GenerationConfig):
        """On CUDA, a function of the sorted prompt lengths left: the largest batch that fits; elsewhere 4."""
        if not str(self.device).startswith("cuda"):
            return CPU_BATCH_SIZE
        dtype_bytes = self.model.dtype.itemsize

        def per_row(prompt_tokens: int) -> int:
            return bytes_per_row(self.model.config, prompt_tokens, config.max_new_tokens, dtype_bytes)

        def size(lengths: Sequence[int]) -> int:
            budget = int(free_bytes(str(self.device)) * MEMORY_MARGIN) - RESERVE_BYTES
            return fitting_batch(per_row, lengths, max(budget, 0), MAX_AUTO_BATCH)

        return size

    def generate_batch(self, batch: list[Request], prompts: list[list[int]], config: GenerationConfig) -> list[Result]:
        import torch

        began = time.perf_counter()
        encoded = self.tokenizer.pad({"input_ids": prompts}, padding=True, return_tensors="pt").to(self.device)
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
                logits_processor=self.schema_processors(batch),
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
                    extra={"engine": "static"},
                )
            )
        return results

    def schema_processors(self, batch: list[Request]) -> list | None:
        """A grammar mask per row when any request of the batch carries a JSON schema."""
        if all(r.json_schema is None for r in batch):
            return None
        from transformers import LogitsProcessorList

        from .hf_grammar import GrammarCompiler

        if self.grammar is None:
            self.grammar = GrammarCompiler(self.tokenizer, self.model.config.vocab_size)
        eos = self.model.generation_config.eos_token_id
        eos_ids = eos if isinstance(eos, list) else [eos if eos is not None else self.tokenizer.eos_token_id]
        return LogitsProcessorList([self.grammar.processor([r.json_schema for r in batch], eos_ids)])

    def close(self) -> None:
        self.model = None


def prompt_text(tokenizer: Any, request: Request, config: GenerationConfig) -> str:
    if request.prompt is not None:
        return request.prompt
    if not config.chat_template:
        return "\n\n".join(m["content"] for m in request.messages)
    return tokenizer.apply_chat_template(list(request.messages), tokenize=False, add_generation_prompt=True)


def templated(request: Request, config: GenerationConfig) -> bool:
    """Chat-templated text carries its own special tokens; a raw prompt gets the tokenizer's (BOS), as vLLM does."""
    return request.messages is not None and config.chat_template


def cut_at_stop(text: str, stops: Sequence[str]) -> tuple[str, bool]:
    positions = [text.find(s) for s in stops if s and s in text]
    return (text[: min(positions)], True) if positions else (text, False)


def default_device() -> str:
    from accelerate import PartialState

    return str(PartialState().device)
