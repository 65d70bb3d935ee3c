"""A local stand-in for the Hugging Face Hub, speaking the HTTP endpoints huggingface_hub's own client uses.

`with HubStandIn() as hub:` serves on `hub.url` (use it as HF_ENDPOINT or `HfApi(endpoint=hub.url)`) until the
block ends; the repos live in memory for that long, whatever happens to the clients. Every file is committed
as a regular git blob (preupload never asks for LFS or Xet), so what a client uploads is kept byte for byte.
Any token is accepted; writes need one, and so does reading a private repo (else: RepoNotFound, as on the Hub).

Endpoints (TYPE = models | datasets | spaces; REV = a branch or a commit oid, URL-quoted):
    POST   /api/repos/create                  {name, organization, type, private|visibility, sdk}; 409 if it exists
    DELETE /api/repos/delete                  {name, organization, type}
    GET    /api/TYPE/NS/NAME[/revision/REV]   repo info: id, sha, private, siblings, cardData (, sdk)
    POST   /api/TYPE/NS/NAME/preupload/REV    uploadMode "regular" and the oid of the file now at that path
    POST   /api/TYPE/NS/NAME/commit/BRANCH    ndjson: header, file (base64), deletedFile, deletedFolder
    GET    /api/TYPE/NS/NAME/tree/REV[/PATH]  ?recursive=&expand=
    POST   /api/TYPE/NS/NAME/paths-info/REV   paths, expand (form-encoded or JSON)
    GET    /api/TYPE/NS/NAME/commits/REV      history, newest first
    GET    /api/TYPE/NS/NAME/refs             branches
    POST   /api/TYPE/NS/NAME/branch/BRANCH    {startingPoint}; 409 if it exists
    POST   /api/TYPE/NS/NAME/super-squash/BRANCH
    PUT    /api/TYPE/NS/NAME/settings         {private|visibility}
    GET|POST|DELETE /api/spaces/NS/NAME/variables   a Space's variables; POST {key, value, description?}, DELETE {key}
    GET|POST|DELETE /api/spaces/NS/NAME/secrets     a Space's secrets, the same way (a value never comes back)
    POST   /api/validate-yaml                 400 when the README's YAML header does not parse
    GET    /api/whoami-v2
    HEAD|GET /[datasets/|spaces/]NS/NAME/resolve/REV/PATH   ETag, X-Repo-Commit; GET honours Range
Errors carry X-Error-Code (RepoNotFound, RevisionNotFound, EntryNotFound) as the client expects. A test may set
`hub.fault` (e.g. from hub_standin_faults.py): where it returns an answer, that answer is sent instead of the Hub's.
"""

from __future__ import annotations

import functools
import os
import re
import threading
import traceback
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from urllib.parse import parse_qs, unquote, urlsplit

import pytest
from hub_standin_http import Request, Response
from hub_standin_routes import route
from hub_standin_store import DEFAULT_BRANCH, REPO_TYPES, HubError, Store

FAKE_TOKEN = "hf_standin_token"
OFFLINE_VARIABLES = ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "HF_EVALUATE_OFFLINE", "TRANSFORMERS_OFFLINE")
# Set in a caller's environment, these would send a subprocess's caches and token elsewhere than its HF_HOME.
HOME_VARIABLES = ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_DATASETS_CACHE", "HF_EVALUATE_CACHE", "HF_TOKEN_PATH")
RANGE = re.compile(r"bytes=(\d*)-(\d*)")


class HubStandIn:
    """A threaded HTTP server on 127.0.0.1 with the Hub's repo, commit, tree and resolve endpoints."""

    def __init__(self) -> None:
        self.store = Store()
        self.requests: list[tuple[str, str]] = []  # (method, URL path) of every request served, in order
        # A test's fault: given each request, the answer to send instead of the Hub's, or None for the Hub's own.
        self.fault: Callable[[Request], Response | None] | None = None
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        if self._server is None:
            raise RuntimeError("the Hub stand-in is not started: use `with HubStandIn() as hub:`")
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> HubStandIn:
        self._server = _Server(self)
        serve = functools.partial(self._server.serve_forever, poll_interval=0.05)
        self._thread = threading.Thread(target=serve, name="hub-standin", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None):
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._thread.join(timeout=10)
            self._server = None

    def files(self, repo_id: str, repo_type: str = "dataset", revision: str = DEFAULT_BRANCH) -> dict[str, bytes]:
        """The repo's tree at `revision` (a branch or a commit oid): path -> bytes."""
        with self.store.lock:
            repo = self.store.repo(_checked(repo_type), repo_id)
            return dict(self.store.resolve(repo, revision).files)

    def commits(self, repo_id: str, repo_type: str = "dataset") -> list[dict]:
        """The main branch's history, oldest first: the repo's "initial commit" (no paths), then per commit its
        oid, message and the paths whose content it changed."""
        with self.store.lock:
            repo = self.store.repo(_checked(repo_type), repo_id)
            history = repo.history(repo.branches[DEFAULT_BRANCH])
            return [{"oid": c.oid, "message": c.message, "paths": list(c.paths)} for c in reversed(history)]

    def repos(self) -> list[tuple[str, str]]:
        """(repo_type, repo_id) of every repo that exists, in creation order."""
        return [(repo.repo_type, repo.repo_id) for repo in self.store.repos()]

    def variables(self, repo_id: str) -> dict[str, str]:
        """A Space's variables: key -> value."""
        with self.store.lock:
            return {key: entry["value"] for key, entry in self.store.repo("space", repo_id).variables.items()}

    def secrets(self, repo_id: str) -> dict[str, str]:
        """A Space's secrets: key -> value (which the Hub never shows; the stand-in keeps it for the tests)."""
        with self.store.lock:
            return {key: entry["value"] for key, entry in self.store.repo("space", repo_id).secrets.items()}

    def is_private(self, repo_id: str, repo_type: str = "dataset") -> bool:
        with self.store.lock:
            return self.store.repo(_checked(repo_type), repo_id).private

    def patch_client(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Points huggingface_hub in this process at the stand-in, online, for one test.

        huggingface_hub reads HF_ENDPOINT and HF_HUB_OFFLINE at import; patching `constants.ENDPOINT` alone sends
        hf_hub_download elsewhere (its URL template was built from the old endpoint), so both are patched.
        """
        from huggingface_hub import constants

        monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
        monkeypatch.setattr(constants, "ENDPOINT", self.url)
        monkeypatch.setattr(
            constants, "HUGGINGFACE_CO_URL_TEMPLATE", self.url + "/{repo_id}/resolve/{revision}/{filename}"
        )

    def env(self, home: Path | str) -> dict[str, str]:
        """os.environ for a subprocess whose huggingface_hub, datasets and evaluate talk to this stand-in."""
        env = {k: v for k, v in os.environ.items() if k not in OFFLINE_VARIABLES + HOME_VARIABLES}
        env.update(
            HF_ENDPOINT=self.url,
            HF_HOME=str(home),
            HF_TOKEN=FAKE_TOKEN,
            HF_HUB_DISABLE_TELEMETRY="1",
            HF_UPDATE_DOWNLOAD_COUNTS="0",  # evaluate would otherwise ask an outside host on every load
        )
        return env


def _checked(repo_type: str) -> str:
    if repo_type not in REPO_TYPES:
        raise ValueError(f"repo_type must be one of {REPO_TYPES}, not {repo_type!r}")
    return repo_type


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, standin: HubStandIn) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.standin = standin

    def handle_error(self, request: object, client_address: object) -> None:
        pass  # a client killed mid-request is not the stand-in's error; handler errors become 500 answers


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def do_GET(self) -> None:
        self._serve("GET")

    def do_HEAD(self) -> None:
        self._serve("HEAD")

    def do_POST(self) -> None:
        self._serve("POST")

    def do_PUT(self) -> None:
        self._serve("PUT")

    def do_DELETE(self) -> None:
        self._serve("DELETE")

    def log_message(self, format: str, *args: object) -> None:
        pass

    def _serve(self, method: str) -> None:
        standin = self.server.standin
        split = urlsplit(self.path)
        with standin.store.lock:
            standin.requests.append((method, split.path))
        try:
            body = self._read_body()
        except ConnectionError:
            self.close_connection = True  # the client went away mid-request: nothing of it is applied
            return
        request = Request(
            method=method,
            segments=[unquote(s) for s in split.path.strip("/").split("/")],
            query={k: v[-1] for k, v in parse_qs(split.query).items()},
            headers=self.headers,
            body=body,
            base_url=standin.url,
        )
        try:
            response = (standin.fault and standin.fault(request)) or route(standin.store, request)
        except HubError as error:
            response = Response.error(error.status, error.message, error.code, error.commit)
        except Exception:
            response = Response.error(500, traceback.format_exc(limit=5))
        self._send(method, response)

    def _read_body(self) -> bytes:
        """The request body, whole; ConnectionError when the client closed before sending all of it."""
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            chunks = []
            while size := int(self._read_line().split(b";")[0].strip() or b"0", 16):
                chunks.append(self._read_exactly(size))
                self._read_line()
            while self._read_line() not in (b"\r\n", b"\n"):
                pass
            return b"".join(chunks)
        return self._read_exactly(int(self.headers.get("Content-Length") or 0))

    def _read_exactly(self, size: int) -> bytes:
        data = self.rfile.read(size)
        if len(data) < size:
            raise ConnectionError(f"the client sent {len(data)} of {size} bytes")
        return data

    def _read_line(self) -> bytes:
        line = self.rfile.readline(65537)
        if not line.endswith(b"\n"):
            raise ConnectionError("the client closed mid-line")
        return line

    def _send(self, method: str, response: Response) -> None:
        body, status, headers = response.body, response.status, dict(response.headers)
        if response.ranged:
            body, status, headers = _apply_range(self.headers.get("Range"), body, headers)
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if method != "HEAD":
            self.wfile.write(body)


def _apply_range(header: str | None, body: bytes, headers: dict[str, str]) -> tuple[bytes, int, dict[str, str]]:
    """(body, status, headers) for a `Range: bytes=A-B | A- | -N` request header (one range; others: whole body)."""
    match = RANGE.fullmatch(header.strip()) if header else None
    if match is None or match.groups() == ("", ""):
        return body, 200, headers
    first, last = match.groups()
    size = len(body)
    if first == "":
        start, end = max(size - int(last), 0), size - 1
    else:
        start, end = int(first), min(int(last), size - 1) if last else size - 1
    if start >= size or start > end:
        return b"", 416, {**headers, "Content-Range": f"bytes */{size}"}
    return body[start : end + 1], 206, {**headers, "Content-Range": f"bytes {start}-{end}/{size}"}
