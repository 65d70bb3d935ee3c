"""vLLM's offline engine (`vllm.LLM`). Multi-node: start a Ray cluster and set tensor/pipeline parallel sizes;
vLLM distributes itself (see docs/running-and-backends.md); this backend adds no distribution of its own.

The engine starts on the first `generate` call, its memory settings (`max_model_len`, `max_num_batched_tokens`,
`gpu_memory_utilization`) planned from that call's rows where they are not given (`vllm_plan`), the plan printed in
one line and recorded in config.yaml's `engine`; rows longer than the plan are named before the run.

Requests go to the engine in chunks of `chunk_size` (vLLM batches within a chunk as it likes), and each chunk's
results reach `on_result` before the next chunk starts, so a crash loses at most one chunk. A request vLLM refuses
(a prompt longer than the model's context, a schema it cannot compile) is a failed call of its own: the chunk is
halved until each refused request stands alone, and the others run. Under `accelerate launch` each process is one
data-parallel replica pinned to its own GPU (`PartialState().device`); for one model over several GPUs use
`tensor_parallel_size` in a plain (not accelerate-launched) process.
"""

from __future__ import annotations

import copy
import os
import time
from collections.abc import Callable, Sequence
from typing import Any

from ..config import GenerationConfig
from .base import OnResult, Request, Result, deliver
from .options import Count, Seed, Share
from .vllm_engine import StructuredOutputsBackend, compact_json, cpu_kv_cache_space, engine_description, field_names
from .vllm_plan import VLLMPlan, device_memory, plan_vllm, prompt_lengths, read_model, too_long_line


def pin_to_this_process_gpu() -> None:
    """Under accelerate with several processes, each replica sees only its own GPU (before vLLM starts CUDA)."""
    try:
        from accelerate import PartialState
    except ImportError:
        return
    state = PartialState()
    if state.num_processes > 1 and getattr(state.device, "type", "") == "cuda":
        os.environ["CUDA_VISIBLE_DEVICES"] = str(state.local_process_index)


def refusal_errors(vllm: Any) -> tuple[type[BaseException], ...]:
    """What vLLM raises for a request it refuses before running it: its client error (0.11+), else ValueError."""
    exceptions = getattr(vllm, "exceptions", None)
    client = getattr(exceptions, "VLLMClientError", None)
    return (ValueError, client) if isinstance(client, type) else (ValueError,)


class VLLMBackend:
    def __init__(
        self,
        model: str,
        tensor_parallel_size: Count = 1,
        pipeline_parallel_size: Count = 1,
        gpu_memory_utilization: Share | None = None,
        max_model_len: Count | None = None,
        max_num_batched_tokens: Count | None = None,
        enable_prefix_caching: bool = True,
        seed: Seed = 0,
        dtype: str = "auto",
        distributed_executor_backend: str | None = None,
        trust_remote_code: bool = False,
        chunk_size: Count = 256,
        enforce_eager: bool = False,
        structured_outputs_backend: StructuredOutputsBackend = "guidance",
        kv_cache_space_gib: Count | None = None,
    ):
        if int(chunk_size) <= 0:
            raise ValueError(f"vllm chunk_size must be a positive integer, got {chunk_size!r}")
        pin_to_this_process_gpu()
        import vllm

        self.vllm = vllm
        self.name = f"vllm:{model}"
        self.chunk_size = int(chunk_size)
        self.compact = compact_json(vllm, structured_outputs_backend)
        self.engine = engine_description(vllm, structured_outputs_backend, self.compact)
        self.refused = refusal_errors(vllm)
        self.kv_cache_space_gib = kv_cache_space_gib
        self.parallel = int(tensor_parallel_size) * int(pipeline_parallel_size)
        self.given = {
            "max_model_len": max_model_len,
            "max_num_batched_tokens": max_num_batched_tokens,
            "gpu_memory_utilization": gpu_memory_utilization,
        }
        self.options = {
            "model": model,
            "tensor_parallel_size": tensor_parallel_size,
            "pipeline_parallel_size": pipeline_parallel_size,
            "enable_prefix_caching": enable_prefix_caching,
            "seed": seed,
            "dtype": dtype,
            "distributed_executor_backend": distributed_executor_backend,
            "trust_remote_code": trust_remote_code,
            "enforce_eager": enforce_eager,
            **{k: v for k, v in self.given.items() if v is not None},
            **self.compact.engine_args,
        }
        self.plan: VLLMPlan | None = None
        self.engine_llm = None  # started by the first generate call, planned from its rows
        self.closed = False

    @property
    def started(self) -> bool:
        return self.engine_llm is not None

    @property
    def llm(self):
        """The engine; used before any rows came (e.g. for its sampling defaults), it starts with nothing planned."""
        if self.engine_llm is None and not self.closed:
            self.start((), None)
        return self.engine_llm

    def start(self, requests: Sequence[Request], config: GenerationConfig | None) -> None:
        """Start vLLM (once), with the settings not given planned from these rows."""
        if self.engine_llm is not None or self.closed:
            return
        settings = self.planned(requests, config) if requests and config is not None else {}
        with cpu_kv_cache_space(self.kv_cache_space_gib):
            self.engine_llm = self.vllm.LLM(**self.options, **settings)

    def planned(self, requests: Sequence[Request], config: GenerationConfig) -> dict[str, Any]:
        """The plan's settings (none where the model cannot be read here: vLLM's defaults), printed in one line."""
        from ..progress import console

        options = self.options
        try:
            shape, tokenizer = read_model(options["model"], options["dtype"], options["trust_remote_code"])
            lengths = prompt_lengths(tokenizer, requests, config.chat_template)
        except Exception as error:  # a model vLLM reads and transformers does not: vLLM sizes itself
            reason = f"{type(error).__name__}: {str(error).strip().splitlines()[0][:200] if str(error).strip() else ''}"
            console.print(f"vllm: no memory plan ({reason}); vLLM's defaults", markup=False)
            return {}
        self.plan = plan_vllm(shape, lengths, config.max_new_tokens, self.device_memory(), self.given, self.parallel)
        console.print(self.plan.line(self.given), markup=False, soft_wrap=True)
        if self.plan.too_long:
            longest = self.plan.settings.get("max_model_len") or self.given["max_model_len"] or shape.context
            console.print(too_long_line(self.plan.too_long, longest), style="yellow", markup=False)
        if self.plan.engine():
            self.engine = f"{self.engine}; {self.plan.engine()}"
        settings = dict(self.plan.settings)
        if "max_num_batched_tokens" in settings and "enable_chunked_prefill" in field_names(self.vllm.EngineArgs):
            settings["enable_chunked_prefill"] = True  # prompts longer than the chunk are prefilled in chunks
        return settings

    def device_memory(self):
        """The memory the plan sizes vLLM for (tests give a device of their own)."""
        return device_memory(self.kv_cache_space_gib)

    def sampling(self, config: GenerationConfig):
        """The model's own defaults (its generation_config), overridden by what the config sets."""
        options = {
            "max_tokens": config.max_new_tokens,
            "temperature": config.temperature,
            "top_p": config.top_p,
            "top_k": config.top_k,
            "seed": config.seed,
            "stop": list(config.stop) or None,
        }
        defaults = self.llm.get_default_sampling_params() if hasattr(self.llm, "get_default_sampling_params") else None
        if defaults is None:
            return self.vllm.SamplingParams(**{k: v for k, v in options.items() if v is not None})
        for key, value in options.items():
            if value is not None:
                setattr(defaults, key, value)
        return defaults

    def constrained(self, params, schema: dict | None):
        """The sampling parameters of one request: its JSON schema through vLLM's structured outputs."""
        if schema is None:
            return params
        own = params.clone() if hasattr(params, "clone") else copy.deepcopy(params)
        sampling = self.vllm.sampling_params
        compact = {"disable_any_whitespace": True} if self.compact.request_flag else {}
        if hasattr(sampling, "StructuredOutputsParams"):  # vLLM >= 0.10.2
            own.structured_outputs = sampling.StructuredOutputsParams(json=schema, **compact)
        else:
            own.guided_decoding = sampling.GuidedDecodingParams(json=schema, **compact)
        return own

    def generate(self, requests: Sequence[Request], config: GenerationConfig, on_result: OnResult | None = None):
        self.start(requests, config)
        params = self.sampling(config)
        results = []
        for start in range(0, len(requests), self.chunk_size):
            chunk = requests[start : start + self.chunk_size]
            results += deliver(self.generate_chunk(chunk, params, config), on_result)
        return results

    def generate_chunk(self, requests: Sequence[Request], params, config: GenerationConfig) -> list[Result]:
        began = time.perf_counter()

        def per(part: Sequence[Request]) -> list:
            return [self.constrained(params, r.json_schema) for r in part]

        def chat(part: Sequence[Request]) -> list:
            return self.llm.chat([list(r.messages) for r in part], per(part))

        def raw(part: Sequence[Request]) -> list:
            return self.llm.generate([prompt_text(r) for r in part], per(part))

        chats = [r for r in requests if r.messages is not None and config.chat_template]
        raws = [r for r in requests if not (r.messages is not None and config.chat_template)]
        outputs = (self.answers(chats, chat) if chats else {}) | (self.answers(raws, raw) if raws else {})
        seconds = (time.perf_counter() - began) / max(1, len(requests))
        return [self.result(request, outputs[request.key], seconds) for request in requests]

    def answers(self, requests: Sequence[Request], run: Callable[[Sequence[Request]], list]) -> dict[str, Any]:
        """Each request's output, or the message of vLLM's refusal when it refuses that request alone (vLLM checks
        every request of a call before running any, and runs none of them if it refuses one)."""
        try:
            return {r.key: output for r, output in zip(requests, run(requests), strict=True)}
        except self.refused as error:
            if len(requests) == 1:
                return {requests[0].key: f"vLLM refused the request: {error}"}
            half = len(requests) // 2
            return self.answers(requests[:half], run) | self.answers(requests[half:], run)

    def result(self, request: Request, output, seconds: float) -> Result:
        extra = {"engine": self.engine}
        if isinstance(output, str):
            return Result(request.key, "", None, None, None, seconds, error=output, extra=extra)
        completion = output.outputs[0]
        return Result(
            key=request.key,
            text=completion.text,
            finish_reason=completion.finish_reason,
            prompt_tokens=len(output.prompt_token_ids or []),
            completion_tokens=len(completion.token_ids),
            seconds=seconds,
            extra=extra,
        )

    def close(self) -> None:
        self.engine_llm, self.closed = None, True


def prompt_text(request: Request) -> str:
    return request.prompt if request.prompt is not None else "\n\n".join(m["content"] for m in request.messages)
