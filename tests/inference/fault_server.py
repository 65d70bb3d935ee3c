"""A local OpenAI-compatible HTTP server that injects faults, for testing retries (not a model)."""

from __future__ import annotations

import json
import re
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MARK = re.compile(r"MARK-([a-z0-9_]+)")


class Listener(ThreadingHTTPServer):
    request_queue_size = 128  # the default backlog of 5 stalls bursts of new connections
    daemon_threads = True


class FaultServer:
    """Behaviour per request is chosen by the first `MARK-<name>` in the prompt:

    rate: 429 with Retry-After: 1 once, then OK. dayrate: 429 with Retry-After: 86400 once, then OK. error: 500
    twice, then OK. slow: sleeps `slow_seconds` once, then OK. malformed / truncated: always answers with unusable
    judge output. anything else: OK. `ok_text(prompt)` gives the successful answer. `service_time` delays every
    answer (throughput benches). Setting `fail_with` makes every request fail that way until it is reset:
    "500", "empty" (empty text), "no_choices", "null_choices", "null_content", "html" (a 200 HTML page),
    "bad_json" (a 200 body cut short), "markup_400" (a 400 whose message holds `[/v1/...]`, rich markup syntax),
    "escape_400" (a 400 whose message holds terminal escape sequences, a bidi override and a C1 control).
    """

    def __init__(
        self, ok_text=lambda prompt: "OK", slow_seconds: float = 3.0, service_time: float = 0.0, ok_answer=None
    ):
        self.ok_text = ok_text
        self.ok_answer = ok_answer  # (body, prompt) -> text: an answer that depends on the request (e.g. its seed)
        self.slow_seconds = slow_seconds
        self.service_time = service_time
        self.fail_with: str | None = None
        self.seen: Counter[str] = Counter()
        self.authorizations: set[str] = set()
        self.bodies: list[dict] = []  # every request body, as received
        self.lock = threading.Lock()
        self.in_flight = 0
        self.max_in_flight = 0
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as real servers do
            disable_nagle_algorithm = True  # headers and body go out at once

            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.authorizations.add(self.headers.get("Authorization", ""))
                server.bodies.append(body)
                prompt = body.get("prompt") or "\n".join(m["content"] for m in body.get("messages", []))
                with server.lock:
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                try:
                    server.respond(self, body, prompt)
                finally:
                    with server.lock:
                        server.in_flight -= 1

        self.httpd = Listener(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()

    def respond(self, handler, body, prompt):
        match = MARK.search(prompt)
        mark = match.group(1) if match else "plain"
        with self.lock:
            self.seen[mark] += 1
            count = self.seen[mark]
        if self.service_time:
            time.sleep(self.service_time)
        if self.fail_with:
            return self.send_failure(handler, body)
        if mark == "dayrate" and count == 1:
            return self.send(handler, 429, {"error": {"message": "come back tomorrow"}}, {"Retry-After": "86400"})
        if mark == "rate" and count == 1:
            return self.send(handler, 429, {"error": {"message": "slow down"}}, {"Retry-After": "1"})
        if mark == "error" and count <= 2:
            return self.send(handler, 500, {"error": {"message": "boom"}})
        if mark == "slow" and count == 1:
            time.sleep(self.slow_seconds)
        text = self.ok_answer(body, prompt) if self.ok_answer else self.ok_text(prompt)
        if mark == "malformed":
            text = "The response is good. I would give it a high score."
        elif mark == "truncated":
            text = '[{"checklist_id": 0, "reason": "fine", "evaluation_score": 1}, {"checklist_id": 1, "rea'
        return self.send(handler, 200, self.completion(body, text))

    def send_failure(self, handler, body):
        kind = self.fail_with
        if kind == "500":
            return self.send(handler, 500, {"error": {"message": "down"}})
        if kind == "markup_400":
            return self.send(handler, 400, {"error": {"message": "no route [/v1/chat/completions] here"}})
        if kind == "escape_400":  # a hostile server: a window title, a cleared screen, colour, a clipboard write
            message = "bad \x1b]0;TITLE\x07\x1b[2J\x1b[31mred\x1b]52;c;aGVsbG8=\x07\u202eevil\x9b31m end"
            return self.send(handler, 400, {"error": {"message": message}})
        if kind == "html":
            return self.send_raw(handler, 200, b"<html><body>502 Bad Gateway</body></html>", "text/html")
        if kind == "bad_json":
            return self.send_raw(handler, 200, b'{"id": "x", "choi', "application/json")
        payload = self.completion(body, "")
        if kind == "no_choices":
            payload["choices"] = []
        elif kind == "null_choices":
            payload["choices"] = None
        elif kind == "null_content" and "messages" in body:
            payload["choices"][0]["message"]["content"] = None
        return self.send(handler, 200, payload)

    @staticmethod
    def completion(body, text):
        usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
        if "messages" in body:
            return {
                "id": "x",
                "object": "chat.completion",
                "created": 0,
                "model": body["model"],
                "usage": usage,
                "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
            }
        return {
            "id": "x",
            "object": "text_completion",
            "created": 0,
            "model": body["model"],
            "usage": usage,
            "choices": [{"index": 0, "finish_reason": "stop", "text": text, "logprobs": None}],
        }

    @classmethod
    def send(cls, handler, status, payload, headers=None):
        cls.send_raw(handler, status, json.dumps(payload).encode(), "application/json", headers)

    @staticmethod
    def send_raw(handler, status, data, content_type, headers=None):
        handler.send_response(status)
        handler.send_header("Content-Type", content_type)
        handler.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            handler.send_header(key, value)
        handler.end_headers()
        handler.wfile.write(data)


if __name__ == "__main__":
    import sys

    with FaultServer(service_time=float(sys.argv[1]) if len(sys.argv) > 1 else 0.0) as running:
        print(running.url, flush=True)
        running.thread.join()
