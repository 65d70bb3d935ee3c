"""A loopback Hub endpoint that answers what a hostile or broken server would, for huggingface_hub's own client.

It holds one dataset repo (`files`, path -> bytes) and serves the endpoints `snapshot_download` calls: the repo's
info (`/api/datasets/NS/NAME[/revision/REV]`), its tree (`/api/datasets/NS/NAME/tree/REV`) and its files
(`HEAD|GET /datasets/NS/NAME/resolve/REV/PATH`). `mode` decides what goes wrong (`MODES`); "ok" is a sound Hub.
"""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote, urlsplit

from huggingface_hub.utils.sha import git_hash

COMMIT = "0123456789abcdef0123456789abcdef01234567"
ESCAPE = "../../../../victim"  # from a repo's cache folder (HF_HOME/hub/datasets--NS--NAME/x/): HF_HOME's parent
HUGE_BYTES = 80 * 1024 * 1024
CHUNK = 1024 * 1024
MODES = {
    "ok": "a sound Hub",
    "sha": "the repo's commit sha is a path out of the cache",
    "etag": "a file's ETag is a path out of the cache",
    "commit-header": "a file is missing, its X-Repo-Commit header a path out of the cache",
    "tree-path": "the tree lists a file whose path leaves the repo",
    "huge": "the repo info is an 80 MB JSON list",
    "huge-stream": "the repo info is an 80 MB JSON list, sent in chunks with no Content-Length",
    "hang": "the repo info never comes",
    "garbage": "the repo info is not JSON",
    "keyerror": "the repo info is a JSON object without the repo's id",
    "tree-garbage": "the repo info is sound, its tree is not JSON",
}
INFO = re.compile(r"/api/datasets/(?P<repo>[^/]+/[^/]+)(?:/revision/(?P<revision>[^/]+))?")
TREE = re.compile(r"/api/datasets/(?P<repo>[^/]+/[^/]+)/tree/(?P<revision>[^/]+)(?:/.*)?")
RESOLVE = re.compile(r"/datasets/(?P<repo>[^/]+/[^/]+)/resolve/(?P<revision>[^/]+)/(?P<path>.+)")


class HostileHub:
    """`with HostileHub(files, mode) as hub:` serves on `hub.url` (HF_ENDPOINT) until the block ends."""

    def __init__(self, files: dict[str, bytes], mode: str = "ok") -> None:
        if mode not in MODES:
            raise ValueError(f"mode {mode!r} is not one of {sorted(MODES)}")
        self.files = files
        self.mode = mode
        self.requests: list[tuple[str, str]] = []
        self.closing = threading.Event()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def __enter__(self) -> HostileHub:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.closing.set()  # a hanging answer ends
        self.server.shutdown()
        self.server.server_close()

    def answer(self, method: str, path: str) -> tuple[int, dict[str, str], bytes]:
        """(status, headers, body) for a request."""
        if match := TREE.fullmatch(path):
            if self.mode == "tree-garbage":
                return 200, {"Content-Type": "application/json"}, b"<html>not a tree</html>"
            listed = {**self.files, **({f"{ESCAPE}.json": b"{}"} if self.mode == "tree-path" else {})}
            tree = [{"type": "file", "path": p, "oid": git_hash(data), "size": len(data)} for p, data in listed.items()]
            return 200, {"Content-Type": "application/json"}, json.dumps(tree).encode()
        if match := INFO.fullmatch(path):
            return self.info(unquote(match["repo"]))
        if match := RESOLVE.fullmatch(path):
            return self.resolve(unquote(match["path"]))
        return 404, {"X-Error-Code": "RepoNotFound"}, b'{"error": "not found"}'

    def info(self, repo_id: str) -> tuple[int, dict[str, str], bytes]:
        json_type = {"Content-Type": "application/json"}
        if self.mode == "hang":
            self.closing.wait(120)
            return 200, json_type, b"{}"
        if self.mode in ("huge", "huge-stream"):
            chunked = {"Transfer-Encoding": "chunked"} if self.mode == "huge-stream" else {}
            return 200, json_type | chunked, b"[" + b"0," * (HUGE_BYTES // 2) + b"0]"
        if self.mode == "garbage":
            return 200, json_type, b"\x00\xffgarbage <html>"
        if self.mode == "keyerror":
            return 200, json_type, json.dumps({"sha": COMMIT, "siblings": []}).encode()
        sha = ESCAPE if self.mode == "sha" else COMMIT
        siblings = [{"rfilename": path} for path in self.files]
        return 200, json_type, json.dumps({"id": repo_id, "sha": sha, "private": False, "siblings": siblings}).encode()

    def resolve(self, path: str) -> tuple[int, dict[str, str], bytes]:
        data = self.files.get(path)
        if data is None or self.mode == "commit-header":
            return 404, {"X-Error-Code": "EntryNotFound", "X-Repo-Commit": ESCAPE}, b'{"error": "no such file"}'
        etag = f"{ESCAPE}.json" if self.mode == "etag" else git_hash(data)
        return 200, {"ETag": f'"{etag}"', "X-Repo-Commit": COMMIT, "Content-Type": "application/octet-stream"}, data


def _handler(hub: HostileHub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            self.serve("GET")

        def do_HEAD(self) -> None:
            self.serve("HEAD")

        def serve(self, method: str) -> None:
            path = urlsplit(self.path).path  # quoted: a revision's "/" is %2F
            hub.requests.append((method, path))
            status, headers, body = hub.answer(method, path)
            chunked = headers.get("Transfer-Encoding") == "chunked"
            self.send_response(status)
            for name, value in (headers if chunked else {**headers, "Content-Length": str(len(body))}).items():
                self.send_header(name, value)
            self.end_headers()
            if method == "GET":
                try:
                    self.write(body, chunked)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up on a huge answer, as it should
                    self.close_connection = True

        def write(self, body: bytes, chunked: bool) -> None:
            if not chunked:
                self.wfile.write(body)
                return
            for start in range(0, len(body), CHUNK):
                part = body[start : start + CHUNK]
                self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
            self.wfile.write(b"0\r\n\r\n")

    return Handler
