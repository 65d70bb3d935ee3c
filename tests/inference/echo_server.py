"""A loopback server that answers every request with HTTP 500 and the whole request (request line, headers, body)
as its error message, as some servers and proxies do: every key, password and token a client sends comes back in
the error, for tests that check none of them is recorded or shown. Once `healed`, it answers completions: `ok_text`,
or with `echo_in_reply` the whole request again, as the text of a successful (200) completion."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler

from .fault_server import FaultServer, Listener


class EchoServer:
    def __init__(self, ok_text: str = "OK", echo_in_reply: bool = False):
        self.ok_text = ok_text
        self.echo_in_reply = echo_in_reply
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
                    text = request if server.echo_in_reply else server.ok_text
                    return FaultServer.send(self, 200, FaultServer.completion(json.loads(raw), text))
                return FaultServer.send(self, 500, {"error": {"message": request, "type": "echo"}})

        self.httpd = Listener(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> EchoServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
