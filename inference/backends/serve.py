"""`longform-eval serve BACKEND:MODEL`: an OpenAI-compatible HTTP server over any backend.

Serves `POST /v1/chat/completions`, `POST /v1/completions` and `GET /v1/models` on loopback by default, one
request at a time (local models are not thread-safe). A `response_format` JSON schema is passed on to the backend
(constrained decoding where the backend has it). Use it to share the embedded model with the Space or any
OpenAI client, and to test the `openai` backend against a real model server.

A request's key (what a keyed backend such as `replay:` answers by) is its `metadata.key`, OpenAI's field for
request tags (`metadata={"key": "ID"}` in the openai client), else its `X-Longform-Eval-Key` header (which the
`openai` backend sends with every request); without either, a fresh key that nothing recorded. A body over
MAX_REQUEST_BYTES is refused (413) unread, and so is one whose Content-Length is not a byte count (negative, not a
number: 400, saying so). A backend that fails a request (no recorded completion, a server past its retries) or
answers it without a text (a plug-in's `text=None`) is an HTTP error naming the request's key with the reason as
`error.message` (502), never a 200 without content; an exception in the backend is a 500.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from longform_eval.common.bounded_json import loads_json
from longform_eval.common.errors import LongformEvalError

from ..config import GenerationConfig, ModelSpec
from ..secret_values import scrubbed
from . import create_backend
from .base import KEY_HEADER, Request


def generation_config(body: dict[str, Any], chat: bool) -> GenerationConfig:
    stop = body.get("stop") or ()
    return GenerationConfig(
        max_new_tokens=int(body.get("max_tokens") or body.get("max_completion_tokens") or 256),
        temperature=float(body.get("temperature", 1.0)),
        top_p=float(body.get("top_p", 1.0)),
        seed=body.get("seed"),
        stop=(stop,) if isinstance(stop, str) else tuple(stop),
        chat_template=chat,
    )


def requested_schema(body: dict[str, Any]) -> dict[str, Any] | None:
    """The JSON schema of `response_format` (OpenAI's structured outputs) or vLLM's `guided_json`, if any."""
    form = body.get("response_format") or {}
    if form.get("type") == "json_schema":
        return form["json_schema"]["schema"]
    return body.get("guided_json")


def request_key(body: dict[str, Any], header: str | None = None) -> str:
    """The request's `metadata.key` (a non-empty string), else its KEY_HEADER (what the `openai` backend sends),
    else a fresh key of its own."""
    metadata = body.get("metadata")
    if metadata is None:
        return header or f"request-{uuid.uuid4().hex[:12]}"
    key = metadata.get("key") if isinstance(metadata, dict) else None
    if not isinstance(key, str) or not key:
        raise ValueError(f"metadata.key must be a non-empty string (the recorded completion's key), got {key!r}")
    return key


MAX_REQUEST_BYTES = 64 * 1024 * 1024  # a prompt of a million tokens is about 4 MB


class BadLength(LongformEvalError, ValueError):
    """A request's Content-Length that is not a byte count."""


def body_size(header: str | None) -> int:
    """The body's size its Content-Length gives (none: 0), MAX_REQUEST_BYTES + 1 for a count over any ceiling.

    Raises:
        BadLength: the header is not a whole number of bytes (negative, signed, not a number).
    """
    if header is None:
        return 0
    count = header.strip()
    if not (count.isascii() and count.isdigit()):
        raise BadLength(f"Content-Length must be a whole number of bytes, got {header[:40]!r}")
    return int(count) if len(count) <= 18 else MAX_REQUEST_BYTES + 1  # 19 digits and more: over any ceiling


class BackendFailed(LongformEvalError, RuntimeError):
    """The backend returned an error for the request instead of a completion."""


class ModelServer:
    def __init__(self, spec: ModelSpec, host: str = "127.0.0.1", port: int = 8000):
        self.spec = spec
        self.backend = create_backend(spec)
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def log_message(self, *args):
                pass

            def do_GET(self):
                if self.path.rstrip("/") == "/v1/models":
                    return self.reply(200, {"object": "list", "data": [{"id": spec.model, "object": "model"}]})
                return self.reply(404, {"error": {"message": f"no route {self.path}"}})

            def do_POST(self):
                try:
                    size = body_size(self.headers.get("Content-Length"))
                except BadLength as error:
                    self.close_connection = True  # the body is not read: its end is unknown
                    return self.reply(400, {"error": {"message": str(error), "type": "invalid_request_error"}})
                if size > MAX_REQUEST_BYTES:
                    self.close_connection = True  # the body is not read
                    return self.reply(413, {"error": {"message": f"a request body over {MAX_REQUEST_BYTES} bytes"}})
                try:
                    body = loads_json(self.rfile.read(size) or b"{}")
                    key = self.headers.get(KEY_HEADER)
                    if self.path.rstrip("/") == "/v1/chat/completions":
                        return self.reply(200, server.complete(body, chat=True, key=key))
                    if self.path.rstrip("/") == "/v1/completions":
                        return self.reply(200, server.complete(body, chat=False, key=key))
                    return self.reply(404, {"error": {"message": f"no route {self.path}"}})
                except BackendFailed as error:
                    return self.reply(502, {"error": {"message": str(error), "type": "backend_error"}})
                except (ValueError, KeyError, TypeError) as error:
                    return self.reply(400, {"error": {"message": str(error)}})
                except Exception as error:  # the backend broke: the client gets an answer, not a dropped connection
                    reason = f"{type(error).__name__}: {error}"
                    return self.reply(500, {"error": {"message": reason, "type": "server_error"}})

            def reply(self, status: int, payload: dict) -> None:
                data = json.dumps(scrubbed(payload)).encode()  # a backend's server may echo its key in a reply
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer((host, port), Handler)
        self.url = f"http://{host}:{self.httpd.server_address[1]}/v1"

    def complete(self, body: dict[str, Any], chat: bool, key: str | None = None) -> dict[str, Any]:
        schema, key = requested_schema(body), request_key(body, key)
        if chat:
            messages = tuple({"role": m["role"], "content": m["content"]} for m in body["messages"])
            request = Request(key=key, messages=messages, json_schema=schema)
        else:
            request = Request(key=key, prompt=str(body["prompt"]), json_schema=schema)
        with self.lock:
            (result,) = self.backend.generate([request], generation_config(body, chat))
        if result.error:
            raise BackendFailed(f"{self.spec.name}: {result.error}")
        if not isinstance(result.text, str):  # a plug-in's reply without a text: no completion to send
            kind = type(result.text).__name__
            raise BackendFailed(f"request {key!r}: {self.spec.name} answered without a text (text is {kind})")
        usage = {
            "prompt_tokens": result.prompt_tokens or 0,
            "completion_tokens": result.completion_tokens or 0,
            "total_tokens": (result.prompt_tokens or 0) + (result.completion_tokens or 0),
        }
        choice: dict[str, Any] = {"index": 0, "finish_reason": result.finish_reason or "stop"}
        if chat:
            choice["message"] = {"role": "assistant", "content": result.text}
        else:
            choice.update(text=result.text, logprobs=None)
        return {
            "id": f"cmpl-{uuid.uuid4().hex[:12]}",
            "object": "chat.completion" if chat else "text_completion",
            "created": int(time.time()),
            "model": self.spec.model,
            "choices": [choice],
            "usage": usage,
        }

    def serve_forever(self) -> None:
        print(f"serving {self.spec.name} at {self.url}", flush=True)
        try:
            self.httpd.serve_forever()
        finally:
            self.httpd.server_close()
            self.backend.close()
