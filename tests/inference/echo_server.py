"""A loopback server that answers every request with HTTP 500 and the whole request (request line, headers, body)
as its error message, as some servers and proxies do: every key, password and token a client sends comes back in
the error, for tests that check none of them is recorded or shown. Once `healed`, it answers completions: `ok_text`,
or with `echo_in_reply` the whole request again, as the text of a successful (200) completion. With `echo_in_header`
its HTTP 500 echoes the request in an `X-Error-Message` header instead of its body. An echo holds the request as
received, then each word of its head percent-encoded and in base64 (`spelled_out`), as a server that reports what it
got in other spellings would."""

from __future__ import annotations

import base64
import json
import re
import threading
from http.server import BaseHTTPRequestHandler
from urllib.parse import quote, unquote

from .fault_server import FaultServer, Listener


def head_of(request: str) -> str:
    """The request line and the headers."""
    return re.split(r"\r?\n\r?\n", request, maxsplit=1)[0]


def spelled_out(request: str) -> str:
    """The request, then each word of its request line and headers (split at spaces, `?`, `&`, `=` and `:`),
    percent-encoded (once: a word that is already is decoded first) and in base64."""
    head = head_of(request)
    words = sorted({word for word in re.split(r"[\s?&=:]+", head) if word})
    spelled = [f"{quote(unquote(word), safe='')} {base64.b64encode(word.encode()).decode()}" for word in words]
    return "\n".join([request, *spelled])


class EchoServer:
    def __init__(self, ok_text: str = "OK", echo_in_reply: bool = False, echo_in_header: bool = False):
        self.ok_text = ok_text
        self.echo_in_reply = echo_in_reply
        self.echo_in_header = echo_in_header
        self.healed = False
        self.requests: list[str] = []  # every request as received, in the text it is echoed as
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                raw = self.rfile.read(int(self.headers["Content-Length"]))
                request = f"{self.requestline}\r\n{self.headers}{raw.decode('utf-8', 'replace')}"
                server.requests.append(request)
                if server.healed:
                    text = spelled_out(request) if server.echo_in_reply else server.ok_text
                    return FaultServer.send(self, 200, FaultServer.completion(json.loads(raw), text))
                if server.echo_in_header:
                    echo = {"X-Error-Message": "; ".join(spelled_out(head_of(request)).splitlines())}
                    return FaultServer.send(self, 500, {"error": {"message": "rejected", "type": "echo"}}, echo)
                return FaultServer.send(self, 500, {"error": {"message": spelled_out(request), "type": "echo"}})

        self.httpd = Listener(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> EchoServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
