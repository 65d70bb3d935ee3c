"""vLLM's offline engine (`vllm.LLM`). Multi-node: start a Ray cluster and set tensor/pipeline parallel sizes;
vLLM distributes itself (see the README); this backend adds no distribution of its own."""

from __future__ import annotations

import time
from collections.abc import Sequence

from ..config import GenerationConfig
from .base import OnResult, Request, Result, deliver


class VLLMBackend:
    def __init__(
        self,
        model: str,
        tensor_parallel_size: int = 1,
        pipeline_parallel_size: int = 1,
        gpu_memory_utilization: float = 0.9,
        max_model_len: int | None = None,
        enable_prefix_caching: bool = True,
        seed: int = 0,
        dtype: str = "auto",
        distributed_executor_backend: str | None = None,
        trust_remote_code: bool = False,
    ):
        import vllm

        self.vllm = vllm
        self.name = f"vllm:{model}"
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
        return self.vllm.SamplingParams(
            max_tokens=config.max_new_tokens,
            temperature=config.temperature,
            top_p=config.top_p,
            seed=config.seed,
            stop=list(config.stop) or None,
        )

    def generate(self, requests: Sequence[Request], config: GenerationConfig, on_result: OnResult | None = None):
        began = time.perf_counter()
        params = self.sampling(config)
        chats = [r for r in requests if r.messages is not None and config.chat_template]
        raws = [r for r in requests if not (r.messages is not None and config.chat_template)]
        outputs = {}
        if chats:
            for request, output in zip(chats, self.llm.chat([list(r.messages) for r in chats], params), strict=True):
                outputs[request.key] = output
        if raws:
            prompts = [
                r.prompt if r.prompt is not None else "\n\n".join(m["content"] for m in r.messages) for r in raws
            ]
            for request, output in zip(raws, self.llm.generate(prompts, params), strict=True):
                outputs[request.key] = output
        seconds = (time.perf_counter() - began) / max(1, len(requests))
        results = []
        for request in requests:
            output = outputs[request.key]
            completion = output.outputs[0]
            results.append(
                Result(
                    key=request.key,
                    text=completion.text,
                    finish_reason=completion.finish_reason,
                    prompt_tokens=len(output.prompt_token_ids or []),
                    completion_tokens=len(completion.token_ids),
                    seconds=seconds,
                )
            )
        return deliver(results, on_result)

    def close(self) -> None:
        self.llm = None
