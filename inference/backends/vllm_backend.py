"""vLLM's offline engine (`vllm.LLM`). Multi-node: start a Ray cluster and set tensor/pipeline parallel sizes;
vLLM distributes itself (see docs/running-and-backends.md); this backend adds no distribution of its own.

Requests go to the engine in chunks of `chunk_size` (vLLM batches within a chunk as it likes), and each chunk's
results reach `on_result` before the next chunk starts, so a crash loses at most one chunk. Under
`accelerate launch` each process is one data-parallel replica pinned to its own GPU (`PartialState().device`);
for one model over several GPUs use `tensor_parallel_size` in a plain (not accelerate-launched) process.
"""

from __future__ import annotations

import copy
import os
import time
from collections.abc import Sequence

from ..config import GenerationConfig
from .base import OnResult, Request, Result, deliver
from .options import Count, Seed, Share


def pin_to_this_process_gpu() -> None:
    """Under accelerate with several processes, each replica sees only its own GPU (before vLLM starts CUDA)."""
    try:
        from accelerate import PartialState
    except ImportError:
        return
    state = PartialState()
    if state.num_processes > 1 and getattr(state.device, "type", "") == "cuda":
        os.environ["CUDA_VISIBLE_DEVICES"] = str(state.local_process_index)


class VLLMBackend:
    def __init__(
        self,
        model: str,
        tensor_parallel_size: Count = 1,
        pipeline_parallel_size: Count = 1,
        gpu_memory_utilization: Share = 0.9,
        max_model_len: Count | None = None,
        enable_prefix_caching: bool = True,
        seed: Seed = 0,
        dtype: str = "auto",
        distributed_executor_backend: str | None = None,
        trust_remote_code: bool = False,
        chunk_size: Count = 256,
    ):
        if int(chunk_size) <= 0:
            raise ValueError(f"vllm chunk_size must be a positive integer, got {chunk_size!r}")
        pin_to_this_process_gpu()
        import vllm

        self.vllm = vllm
        self.name = f"vllm:{model}"
        self.chunk_size = int(chunk_size)
        self.llm = vllm.LLM(
            model=model,
            tensor_parallel_size=tensor_parallel_size,
            pipeline_parallel_size=pipeline_parallel_size,
            gpu_memory_utilization=gpu_memory_utilization,
            max_model_len=max_model_len,
            enable_prefix_caching=enable_prefix_caching,
            seed=seed,
            dtype=dtype,
            distributed_executor_backend=distributed_executor_backend,
            trust_remote_code=trust_remote_code,
        )

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
        if hasattr(sampling, "StructuredOutputsParams"):  # vLLM >= 0.10.2
            own.structured_outputs = sampling.StructuredOutputsParams(json=schema, disable_any_whitespace=True)
        else:
            own.guided_decoding = sampling.GuidedDecodingParams(json=schema)
        return own

    def generate(self, requests: Sequence[Request], config: GenerationConfig, on_result: OnResult | None = None):
        params = self.sampling(config)
        results = []
        for start in range(0, len(requests), self.chunk_size):
            chunk = requests[start : start + self.chunk_size]
            results += deliver(self.generate_chunk(chunk, params, config), on_result)
        return results

    def generate_chunk(self, requests: Sequence[Request], params, config: GenerationConfig) -> list[Result]:
        began = time.perf_counter()
        chats = [r for r in requests if r.messages is not None and config.chat_template]
        raws = [r for r in requests if not (r.messages is not None and config.chat_template)]
        outputs = {}
        if chats:
            per_chat = [self.constrained(params, r.json_schema) for r in chats]
            for request, output in zip(chats, self.llm.chat([list(r.messages) for r in chats], per_chat), strict=True):
                outputs[request.key] = output
        if raws:
            prompts = [
                r.prompt if r.prompt is not None else "\n\n".join(m["content"] for m in r.messages) for r in raws
            ]
            per_raw = [self.constrained(params, r.json_schema) for r in raws]
            for request, output in zip(raws, self.llm.generate(prompts, per_raw), strict=True):
                outputs[request.key] = output
        seconds = (time.perf_counter() - began) / max(1, len(requests))
        return [self.result(request, outputs[request.key], seconds) for request in requests]

    @staticmethod
    def result(request: Request, output, seconds: float) -> Result:
        completion = output.outputs[0]
        return Result(
            key=request.key,
            text=completion.text,
            finish_reason=completion.finish_reason,
            prompt_tokens=len(output.prompt_token_ids or []),
            completion_tokens=len(completion.token_ids),
            seconds=seconds,
        )

    def close(self) -> None:
        self.llm = None
