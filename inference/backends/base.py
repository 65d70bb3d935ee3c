"""The backend contract: `generate(requests) -> results`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..config import GenerationConfig

# The request's key on the wire, for a keyed server (`longform-eval serve replay:FILE`); other servers ignore it.
KEY_HEADER = "X-Longform-Eval-Key"


@dataclass(frozen=True)
class Request:
    """One generation: chat `messages` or a raw `prompt` (exactly one of them).

    `json_schema`, when set, constrains the output to JSON valid under that schema (backends that cannot honour
    it refuse the request rather than ignore it).
    """

    key: str
    messages: tuple[dict[str, str], ...] | None = None
    prompt: str | None = None
    json_schema: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        if (self.messages is None) == (self.prompt is None):
            raise ValueError(f"request {self.key}: give exactly one of messages or prompt")


@dataclass
class Result:
    """What a backend returns for one request; `error` is set (and `text` empty) when it finally failed."""

    key: str
    text: str
    finish_reason: str | None
    prompt_tokens: int | None
    completion_tokens: int | None
    seconds: float
    attempts: int = 1
    error: str | None = None
    extra: dict = field(default_factory=dict)


OnResult = Callable[[Result], None]


class Backend(Protocol):
    """Generates completions. `on_result` is called as each result is ready, so callers can save it at once."""

    name: str

    def generate(
        self, requests: Sequence[Request], config: GenerationConfig, on_result: OnResult | None = None
    ) -> list[Result]: ...

    def close(self) -> None: ...


def deliver(results: list[Result], on_result: OnResult | None) -> list[Result]:
    if on_result is not None:
        for result in results:
            on_result(result)
    return results
