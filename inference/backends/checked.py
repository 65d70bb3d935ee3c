"""Every backend's results checked against the requests it was given (a plug-in's too): one result per request.

A result for a key not asked, or a second one for a key, is a `BackendReplyError` naming the backend and the key
(one line, exit 2: no record was written for it). A request the backend returned nothing for is a failed result
(`Result.error` names the backend): logged, counted and left pending like any failed call, so the next run retries it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from longform_eval.common.errors import LongformEvalError

from ..config import GenerationConfig
from .base import Backend, OnResult, Request, Result


class BackendReplyError(LongformEvalError, RuntimeError):
    """A backend returned a result for a request it was not given, or two for one."""


class CheckedBackend:
    """`inner`, its results checked (see the module's doc); every other attribute is the inner backend's."""

    def __init__(self, inner: Backend):
        self.inner = inner
        self.name = inner.name

    def __getattr__(self, attribute: str) -> Any:
        return getattr(self.inner, attribute)

    def generate(
        self, requests: Sequence[Request], config: GenerationConfig, on_result: OnResult | None = None
    ) -> list[Result]:
        reply = Reply(self.name, [request.key for request in requests], on_result)
        returned = self.inner.generate(requests, config, on_result=reply.receive)
        for result in returned or ():  # a backend that returns its results without handing them to on_result
            if result.key not in reply.received:
                reply.receive(result)
        return reply.finish()

    def close(self) -> None:
        self.inner.close()


class Reply:
    """The results of one `generate` call, each checked as it arrives and handed on."""

    def __init__(self, backend: str, keys: list[str], on_result: OnResult | None):
        self.backend, self.asked, self.on_result = backend, dict.fromkeys(keys), on_result
        self.received: dict[str, Result] = {}

    def receive(self, result: Result) -> None:
        key = getattr(result, "key", None)
        if key not in self.asked:
            raise BackendReplyError(f"backend {self.backend}: returned a result for {key!r}, a request not given to it")
        if key in self.received:
            raise BackendReplyError(f"backend {self.backend}: returned two results for request {key!r}")
        self.received[key] = result
        if self.on_result is not None:
            self.on_result(result)

    def finish(self) -> list[Result]:
        """Every request's result in request order, a failed one for each request the backend left unanswered."""
        for key in self.asked:
            if key not in self.received:
                self.receive(unanswered(self.backend, key))
        return [self.received[key] for key in self.asked]


def unanswered(backend: str, key: str) -> Result:
    error = f"backend {backend} returned no result for this request"
    return Result(key, "", None, None, None, 0.0, error=error)


__all__ = ["BackendReplyError", "CheckedBackend"]
