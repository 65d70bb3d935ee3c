"""Any OpenAI-compatible server (OpenAI, `vllm serve`, llama.cpp's server): async, bounded, retrying.

- At most `max_in_flight` requests at once (asyncio semaphore).
- Retries on 429, 5xx, timeouts, connection errors and malformed replies (a body that is not a completion:
  HTML, broken JSON, no choices, an empty or missing text) with exponential backoff and full jitter,
  honouring a `Retry-After` header up to `max_retry_after` seconds; `timeout` bounds each request.
- The API key comes only from the environment (`api_key_env`, default OPENAI_API_KEY); it is never written.
  So does a URL that carries a secret (`base_url_env`: userinfo, sent as HTTP basic auth, or a query string,
  sent with every request); both are registered as secrets when read, and every error or message is scrubbed
  of them, of Authorization headers and of URL secrets (`scrub`), a server that echoes the request included.
- A request that still fails gets a Result with `error` set, naming the server; the runner logs it and leaves
  it pending. If the server cannot be reached at all, the backend raises ServerUnreachableError after
  saving whatever already finished.
"""

from __future__ import annotations

import asyncio
import email.utils
import os
import random
import sys
import time
from collections.abc import Sequence
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from longform_eval.common.errors import LongformEvalError

from ..config import GenerationConfig
from ..secret_values import register_secret, register_url_secrets, scrub
from .base import KEY_HEADER, OnResult, Request, Result
from .options import Count, Delay, Seconds

RETRY_STATUS = {408, 409, 429, 500, 502, 503, 504}


class ServerUnreachableError(LongformEvalError, ConnectionError):
    pass


class MalformedReply(LongformEvalError, ValueError):
    """The server answered, but not with a usable completion."""


def reply_text(response, chat: bool, accept_empty: bool) -> tuple[str, object]:
    """(text, choice) of a completion response, or MalformedReply saying what is wrong with it."""
    choices = getattr(response, "choices", None)
    if not isinstance(choices, list):
        raise MalformedReply(f"not a completion: {scrub(str(response))[:120]!r}")
    if not choices:
        raise MalformedReply("the reply has no choices")
    choice = choices[0]
    text = getattr(getattr(choice, "message", None), "content", None) if chat else getattr(choice, "text", None)
    if not isinstance(text, str):
        raise MalformedReply("the reply's choice has no text")
    if not text and not accept_empty:
        raise MalformedReply(f"empty text (finish_reason {getattr(choice, 'finish_reason', None)!r})")
    return text, choice


def response_format(schema: dict) -> dict:
    """OpenAI's structured-output request (vLLM's server takes it on both endpoints; OpenAI's own API needs an
    object at the schema's root)."""
    return {"type": "json_schema", "json_schema": {"name": "judgement", "schema": schema, "strict": True}}


def raw_response_format(schema: dict) -> dict:
    """The same for `/v1/completions`, where vLLM reads `response_format` and older vLLM servers `guided_json`."""
    return {"response_format": response_format(schema), "guided_json": schema}


def retry_after_seconds(headers) -> float | None:
    value = headers.get("retry-after") if headers is not None else None
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        parsed = email.utils.parsedate_to_datetime(value)
        return max(0.0, parsed.timestamp() - time.time()) if parsed else None


def server_url(base_url: str | None, base_url_env: str | None) -> str:
    """`base_url`, or the URL in the variable `base_url_env`, or OPENAI_BASE_URL, or OpenAI's own API."""
    if base_url and base_url_env:
        raise ValueError("give base_url or base_url_env, not both")
    if base_url_env:
        if not os.environ.get(base_url_env):
            raise ValueError(f"set {base_url_env} in the environment (base_url_env names it)")
        return checked_url(os.environ[base_url_env], f"the variable {base_url_env} (base_url_env)")
    if base_url:
        return checked_url(base_url, "base_url")
    return checked_url(os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1", "OPENAI_BASE_URL")


def checked_url(url: str, source: str) -> str:
    """An http(s) URL with a host and a numeric port if any; the error names its source, not the value."""
    try:
        parts = urlsplit(url)
        usable = parts.scheme in ("http", "https") and bool(parts.hostname) and parts.port != 0  # .port may raise
    except ValueError:
        usable = False
    if not usable:
        raise ValueError(f"{source}: not an http(s) URL such as http://localhost:8000/v1")
    return url


def split_query(url: str) -> tuple[str, dict[str, str]]:
    """The openai client appends paths to its base URL as text, so a query there would end up inside the path;
    it is sent as the client's default query instead."""
    parts = urlsplit(url)
    return urlunsplit(parts._replace(query="", fragment="")), dict(parse_qsl(parts.query, keep_blank_values=True))


class OpenAIBackend:
    # How calls are made, never what they return: changing these on a run folder is not a new configuration.
    OUTPUT_NEUTRAL_OPTIONS = frozenset(
        {
            "base_url",
            "base_url_env",
            "api_key_env",
            "max_in_flight",
            "max_attempts",
            "timeout",
            "backoff_base",
            "backoff_cap",
            "max_retry_after",
        }
    )

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        base_url_env: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        max_in_flight: Count = 8,
        max_attempts: Count = 5,
        timeout: Seconds = 600.0,
        backoff_base: Delay = 1.0,
        backoff_cap: Delay = 60.0,
        max_retry_after: Delay = 120.0,
        accept_empty: bool = False,
    ):
        import openai

        self.openai = openai
        self.name = f"openai:{model}"
        self.model = model
        self.base_url = server_url(base_url, base_url_env)
        register_url_secrets(self.base_url)
        self.shown_url = scrub(self.base_url)
        register_secret(os.environ.get(api_key_env))
        self.api_key = os.environ.get(api_key_env) or ("EMPTY" if base_url or base_url_env else None)
        if self.api_key is None:
            raise ValueError(f"set {api_key_env} in the environment (or give base_url for a local server)")
        self.max_in_flight = int(max_in_flight)
        self.max_attempts = int(max_attempts)
        self.timeout = float(timeout)
        self.backoff_base = float(backoff_base)
        self.backoff_cap = float(backoff_cap)
        self.max_retry_after = float(max_retry_after)
        self.accept_empty = bool(accept_empty)
        self.calls = 0

    def generate(self, requests: Sequence[Request], config: GenerationConfig, on_result: OnResult | None = None):
        return asyncio.run(self.generate_async(requests, config, on_result))

    async def generate_async(self, requests, config, on_result):
        base_url, query = split_query(self.base_url)
        client = self.openai.AsyncOpenAI(
            base_url=base_url, api_key=self.api_key, default_query=query, max_retries=0, timeout=self.timeout
        )
        gate = asyncio.Semaphore(self.max_in_flight)
        unreachable: list[str] = []

        async def run_one(request: Request) -> Result:
            async with gate:
                result = await self.with_retries(client, request, config)
            if result.error and result.extra.get("connection_error"):
                unreachable.append(result.error)
            elif on_result is not None:
                on_result(result)
            return result

        try:
            results = await asyncio.gather(*(run_one(r) for r in requests))
        finally:
            await client.close()
        if unreachable:
            raise ServerUnreachableError(f"cannot reach {self.shown_url}: {unreachable[0]}")
        return list(results)

    async def with_retries(self, client, request: Request, config: GenerationConfig) -> Result:
        began = time.perf_counter()
        error, connection_error = "", False
        for attempt in range(1, self.max_attempts + 1):
            self.calls += 1
            try:
                result = await self.call(client, request, config)
                result.attempts, result.seconds = attempt, time.perf_counter() - began
                return result
            except self.openai.APIStatusError as failure:
                error, connection_error = f"HTTP {failure.status_code}: {scrub(str(failure))[:200]}", False
                if failure.status_code not in RETRY_STATUS:
                    break
                wait = self.capped(retry_after_seconds(failure.response.headers))
            except (self.openai.APITimeoutError, self.openai.APIConnectionError) as failure:
                timed_out = isinstance(failure, self.openai.APITimeoutError)
                error, connection_error = f"{type(failure).__name__}: {scrub(str(failure))}", not timed_out
                wait = None
            except (MalformedReply, self.openai.APIResponseValidationError, ValueError) as failure:
                error, connection_error = f"malformed reply: {scrub(str(failure))}", False
                wait = None
            if attempt < self.max_attempts:
                await asyncio.sleep(wait if wait is not None else self.backoff(attempt))
        return Result(
            request.key,
            "",
            None,
            None,
            None,
            time.perf_counter() - began,
            attempts=attempt,
            error=scrub(f"{self.shown_url}: {error} (after {attempt} attempts)"),
            extra={"connection_error": connection_error},
        )

    def capped(self, wait: float | None) -> float | None:
        """A server may ask for a day's pause; waiting is capped at `max_retry_after` and said."""
        if wait is not None and wait > self.max_retry_after:
            print(
                f"{self.shown_url}: Retry-After {wait:.0f} s capped at {self.max_retry_after:.0f} s (max_retry_after)",
                file=sys.stderr,
            )
            return self.max_retry_after
        return wait

    def backoff(self, attempt: int) -> float:
        """Full jitter: uniform in [0, min(cap, base * 2^(attempt-1))]."""
        return random.uniform(0, min(self.backoff_cap, self.backoff_base * 2 ** (attempt - 1)))

    async def call(self, client, request: Request, config: GenerationConfig) -> Result:
        common = {
            "model": self.model,
            "max_tokens": config.max_new_tokens,
            "temperature": config.temperature,
            "extra_headers": {KEY_HEADER: request.key},  # a keyed server (serve replay:FILE) answers by it
        }
        if config.top_p is not None:
            common["top_p"] = config.top_p
        if config.top_k is not None:
            common["extra_body"] = {"top_k": config.top_k}  # vLLM's and llama.cpp's servers take it
        if config.seed is not None:
            common["seed"] = config.seed
        if config.stop:
            common["stop"] = list(config.stop)
        if request.messages is not None:
            if request.json_schema is not None:
                common["response_format"] = response_format(request.json_schema)
            response = await client.chat.completions.create(messages=list(request.messages), **common)
        else:
            if request.json_schema is not None:  # not in OpenAI's completions API; vLLM's server takes it
                common["extra_body"] = {**common.get("extra_body", {}), **raw_response_format(request.json_schema)}
            response = await client.completions.create(prompt=request.prompt, **common)
        text, choice = reply_text(response, request.messages is not None, self.accept_empty)
        usage = getattr(response, "usage", None)
        return Result(
            key=request.key,
            text=text,
            finish_reason=choice.finish_reason,
            prompt_tokens=usage.prompt_tokens if usage else None,
            completion_tokens=usage.completion_tokens if usage else None,
            seconds=0.0,
        )

    def close(self) -> None:
        pass
