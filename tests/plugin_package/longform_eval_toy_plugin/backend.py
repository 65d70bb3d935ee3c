"""Backend: `toyecho:NAME` answers every request with the last line of its prompt (or last message)."""

from __future__ import annotations

from collections.abc import Sequence

from longform_eval.inference.backends.base import Backend, OnResult, Request, Result, deliver
from longform_eval.inference.config import GenerationConfig


class EchoBackend(Backend):
    def __init__(self, model: str):
        self.name = f"toyecho:{model}"

    def generate(
        self, requests: Sequence[Request], config: GenerationConfig, on_result: OnResult | None = None
    ) -> list[Result]:
        return deliver([self.answer(request) for request in requests], on_result)

    def answer(self, request: Request) -> Result:
        text = request.prompt if request.prompt is not None else request.messages[-1]["content"]
        return Result(request.key, text.splitlines()[-1], "stop", None, None, 0.0)

    def close(self) -> None:
        pass
