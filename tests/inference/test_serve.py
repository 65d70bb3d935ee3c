"""`longform-eval serve` answers honestly: a served replay file answers the key a request names (`metadata.key`), a
backend that fails a request (or answers it without a text) is an HTTP error with the reason (scrubbed of secrets),
never a 200 with empty content, and a body whose Content-Length is not a byte count is refused saying so."""

from __future__ import annotations

import http.client
import json
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from longform_eval.inference.backends import serve
from longform_eval.inference.backends.base import Result
from longform_eval.inference.cli import main
from longform_eval.inference.config import ModelSpec
from longform_eval.inference.secret_values import register_secret

from .conftest import chat_run, write_replay

SECRET = "sk-serve-test-0123456789abcdef"


@contextmanager
def served(spec: ModelSpec) -> Iterator[str]:
    """`serve` over `spec` on a free loopback port; its /v1 URL."""
    server = serve.ModelServer(spec, port=0)
    thread = threading.Thread(target=server.httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.url
    finally:
        server.httpd.shutdown()
        server.httpd.server_close()
        server.backend.close()


def post(url: str, route: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """Status and JSON body of a POST to `route`, whatever the status."""
    request = urllib.request.Request(f"{url}/{route}", json.dumps(body).encode(), {"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.load(answer)
    except urllib.error.HTTPError as answer:
        return answer.code, json.load(answer)


def chat(key: str | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 8}
    return body | ({"metadata": {"key": key}} if key is not None else {})


@pytest.fixture
def replay(tmp_path: Path) -> ModelSpec:
    path = write_replay(tmp_path / "recorded.jsonl", [("row-1", "the first answer"), ("row-2", "the second answer")])
    return ModelSpec(backend="replay", model=str(path))


def test_a_served_replay_file_answers_the_key_each_request_names(replay):
    with served(replay) as url:
        first = post(url, "chat/completions", chat("row-1"))
        second = post(url, "completions", {"model": "m", "prompt": "go on", "metadata": {"key": "row-2"}})
    assert first[0] == 200 and first[1]["choices"][0]["message"]["content"] == "the first answer"
    assert second[0] == 200 and second[1]["choices"][0]["text"] == "the second answer"


@pytest.mark.parametrize("key", ["row-9", None])
def test_a_request_the_backend_fails_is_a_502_with_the_reason_not_an_empty_200(replay, key):
    with served(replay) as url:
        status, body = post(url, "chat/completions", chat(key))
    assert status == 502 and "choices" not in body
    assert body["error"]["type"] == "backend_error" and "no recorded completion for" in body["error"]["message"]
    assert key is None or "'row-9'" in body["error"]["message"]


@pytest.mark.parametrize("metadata", [{"key": ""}, {"key": 3}, ["row-1"]])
def test_a_bad_metadata_key_is_a_400_naming_it(replay, metadata):
    with served(replay) as url:
        status, body = post(url, "chat/completions", chat() | {"metadata": metadata})
    assert status == 400 and body["error"]["message"].startswith("metadata.key must be a non-empty string")


class Failing:
    """A backend whose every call fails, its reason naming a secret (as a server echoing its key would)."""

    name = "failing:m"

    def __init__(self, raises: bool):
        self.raises = raises

    def generate(self, requests, config, on_result=None):
        if self.raises:
            raise RuntimeError(f"connection refused (key {SECRET})")
        return [Result(r.key, "", None, None, None, 0.0, error=f"HTTP 503 with key {SECRET}") for r in requests]

    def close(self) -> None:
        pass


@pytest.mark.parametrize(("raises", "status", "kind"), [(False, 502, "backend_error"), (True, 500, "server_error")])
def test_a_failing_backend_is_an_http_error_with_its_reason_scrubbed(monkeypatch, raises, status, kind):
    register_secret(SECRET)
    monkeypatch.setattr(serve, "create_backend", lambda spec: Failing(raises))
    with served(ModelSpec(backend="openai", model="m")) as url:
        answer = post(url, "chat/completions", chat())
    assert answer[0] == status and answer[1]["error"]["type"] == kind
    message = answer[1]["error"]["message"]
    assert ("503" in message or "connection refused" in message) and SECRET not in message and "***" in message


def test_the_openai_backend_gets_each_recorded_answer_from_a_served_replay(replay):
    """The openai backend sends each request's key (X-Longform-Eval-Key): a served replay answers it."""
    from longform_eval.inference.backends import create_backend
    from longform_eval.inference.backends.base import Request
    from longform_eval.inference.config import GenerationConfig

    with served(replay) as url:
        client = create_backend(ModelSpec(backend="openai", model="m", options={"base_url": url, "max_attempts": 1}))
        try:
            requests = [Request(key=k, messages=({"role": "user", "content": "hi"},)) for k in ("row-2", "row-1")]
            results = client.generate(requests, GenerationConfig(max_new_tokens=8, temperature=0.0))
        finally:
            client.close()
    assert [(r.key, r.text, r.error) for r in results] == [
        ("row-2", "the second answer", None),
        ("row-1", "the first answer", None),
    ]


def test_a_body_over_the_ceiling_is_refused_unread(replay, monkeypatch):
    monkeypatch.setattr(serve, "MAX_REQUEST_BYTES", 100)
    with served(replay) as url:
        status, answer = post(url, "chat/completions", chat("row-1") | {"padding": "x" * 200})
    assert status == 413 and "over 100 bytes" in answer["error"]["message"]


def post_with_length(url: str, length: str) -> tuple[int, dict[str, Any]]:
    """Status and JSON body of a chat request whose Content-Length header is `length`, whatever its body."""
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        connection.putrequest("POST", f"{parts.path}/chat/completions")
        connection.putheader("Content-Type", "application/json")
        connection.putheader("Content-Length", length)
        connection.endheaders(json.dumps(chat("row-1")).encode())
        answer = connection.getresponse()
        return answer.status, json.load(answer)
    finally:
        connection.close()


@pytest.mark.parametrize("length", ["-5", "-0", "+12", "abc", "1e3", "12 34", ""])
def test_a_content_length_that_is_not_a_byte_count_is_a_400_saying_so(replay, length):
    with served(replay) as url:
        status, answer = post_with_length(url, length)
        after = post(url, "chat/completions", chat("row-1"))  # a new connection is served as before
    message = answer["error"]["message"]
    assert status == 400 and message == f"Content-Length must be a whole number of bytes, got {length!r}"
    assert after[0] == 200 and after[1]["choices"][0]["message"]["content"] == "the first answer"


def test_a_content_length_of_more_digits_than_any_ceiling_is_refused_unread(replay):
    with served(replay) as url:
        status, answer = post_with_length(url, "9" * 5000)  # past int()'s digit limit
    assert status == 413 and f"over {serve.MAX_REQUEST_BYTES} bytes" in answer["error"]["message"]


class Textless:
    """A plug-in that answers the first request it is asked (by key) without a text, every time, and the others."""

    name = "textless:m"

    def __init__(self):
        self.textless: str | None = None

    def generate(self, requests, config, on_result=None):
        self.textless = self.textless or requests[0].key
        return [
            Result(r.key, None if r.key == self.textless else "an answer", "stop", 1, 2, 0.0)  # type: ignore[arg-type]
            for r in requests
        ]

    def close(self) -> None:
        pass


@pytest.mark.parametrize("route", ["chat/completions", "completions"])
def test_a_reply_without_a_text_is_a_502_naming_the_request_not_a_200_without_content(monkeypatch, route):
    monkeypatch.setattr(serve, "create_backend", lambda spec: Textless())
    body = chat("row-7") if route.startswith("chat") else {"model": "m", "prompt": "go", "metadata": {"key": "row-7"}}
    with served(ModelSpec(backend="textless", model="m")) as url:
        status, answer = post(url, route, body)
    assert status == 502 and "choices" not in answer and answer["error"]["type"] == "backend_error"
    assert answer["error"]["message"] == "request 'row-7': textless:m answered without a text (text is NoneType)"


def test_a_run_against_a_server_answering_one_row_without_a_text_fails_that_call_only(
    monkeypatch, gpt4o_replays, tmp_path
):
    """The run records the one failed generation, naming its sample, and generates, judges and scores the other."""
    plugin = Textless()
    monkeypatch.setattr(serve, "create_backend", lambda spec: plugin)
    _, verdicts = gpt4o_replays
    out = tmp_path / "run"
    with served(ModelSpec(backend="textless", model="m")) as url:
        args = chat_run(2, "openai:m", f"replay:{verdicts}", str(out), "--model-arg", f"base_url={url}")
        code = main([*args, "--model-arg", "backoff_base=0.01", "--model-arg", "max_attempts=2"])
    failures = [json.loads(line) for line in (out / "failures.jsonl").read_text().splitlines()]
    generated = [json.loads(line) for line in (out / "generations.jsonl").read_text().splitlines()]
    assert code == 1 and [(f["stage"], f["sample_id"]) for f in failures] == [("generate", plugin.textless)]
    assert "HTTP 502" in failures[0]["error"] and f"request {plugin.textless!r}" in failures[0]["error"]
    assert [g["sample_id"] for g in generated] != [] and plugin.textless not in {g["sample_id"] for g in generated}
