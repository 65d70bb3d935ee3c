"""Every Hub request this package makes has a timeout, a JSON answer of the Hub's API a size limit, and the answers
huggingface_hub turns into cache paths (commit ids, ETags) are checked before it does.

huggingface_hub 2.4 sends its API calls with no timeout and trusts the server's commit id, `X-Repo-Commit` and
`ETag` as names in its cache (docs/hub.md, "Known upstream issue"); its documented hook for such settings is the
HTTP client factory (`set_client_factory`), which `guard_hub_client` sets once per process: huggingface_hub's own
client with these checks added. A request with no timeout gets HF_HUB_DOWNLOAD_TIMEOUT seconds (huggingface_hub's
"default timeout for other requests", 10 unless set) to connect and between two reads, a commit or upload six times
that; an API answer over MAX_API_ANSWER bytes is refused as it arrives. The token a request carries is registered as
a secret (`secret_values`) before it is sent, and an HTTP error of the Hub becomes one line, scrubbed
(`hub_errors`): a Hub or proxy that echoes the Authorization header shows it to no one.
"""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Iterator

import httpx2
from huggingface_hub import constants, set_client_factory
from huggingface_hub.errors import HfHubHTTPError
from huggingface_hub.utils._http import default_client_factory  # the client huggingface_hub would build itself

from longform_eval.common.errors import LongformEvalError
from longform_eval.common.plurals import counted

from ..secret_values import register_secret, scrubbed_line

COMMIT = re.compile(r"[0-9a-f]{40}")
CACHE_NAME = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}")  # one path component, never "." or ".."
MAX_API_ANSWER = 32 * 1024 * 1024
LIMIT = f"{MAX_API_ANSWER // 2**20} MiB"
WRITE_TIMEOUT_FACTOR = 6
READ_METHODS = ("GET", "HEAD")
MAX_ERROR_LINE = 500
_installed = threading.Lock()
_guarded = False


class HubAnswerError(LongformEvalError, ValueError):
    """What answers at the Hub's address (HF_ENDPOINT) sent what no Hub sends: refused before anything is written."""


class HubRequestError(LongformEvalError, OSError):
    """The Hub answered a request with an HTTP error; the message is one line, scrubbed of the secrets in use."""

    def __init__(self, message: str, status_code: int) -> None:
        super().__init__(message)
        self.status_code = status_code


@contextlib.contextmanager
def hub_errors(doing: str) -> Iterator[None]:
    """Turns an HTTP error of the Hub into a HubRequestError: `doing` (e.g. "push runs/x to org/y"), the status, the
    request and the server's message, on one line and scrubbed; the original (which may echo the token) is dropped.
    """
    try:
        yield
    except HfHubHTTPError as error:
        raise hub_request_error(doing, error) from None


def hub_request_error(doing: str, error: HfHubHTTPError) -> HubRequestError:
    return HubRequestError(f"{doing}: {hub_error_line(error)}", error.response.status_code)


def hub_error_line(error: HfHubHTTPError) -> str:
    """`the Hub answered HTTP 500 to POST /api/repos/create: <the server's message>`, one line, scrubbed."""
    request = error.response.request
    said = f": {error.server_message}" if error.server_message else ""
    answer = f"the Hub answered HTTP {error.response.status_code} to {request.method} {request.url.path}{said}"
    return scrubbed_line(answer)[:MAX_ERROR_LINE]


def checked_commit(value: object, what: str) -> str:
    """`value` if it is a full commit id (40 lowercase hex digits), as huggingface_hub names a snapshot folder.

    Raises:
        HubAnswerError: naming `what` (whose commit id it is) and the value.
    """
    if isinstance(value, str) and COMMIT.fullmatch(value):
        return value
    shown = value if not isinstance(value, str) else value[:80]
    raise HubAnswerError(f"{what} names the commit {shown!r}, which is not 40 hex digits")


def request_timeout(method: str) -> float:
    seconds = float(constants.HF_HUB_DOWNLOAD_TIMEOUT)
    return seconds if method in READ_METHODS else seconds * WRITE_TIMEOUT_FACTOR


def registers_token(request: httpx2.Request) -> None:
    """Request hook: the token in the request's Authorization header becomes a registered secret (`scrub` masks it,
    also without the header's name, as a Hub error or a log line may show it)."""
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    register_secret(token or scheme)


def with_timeout(request: httpx2.Request) -> None:
    """Request hook: every part of the timeout huggingface_hub left unset (None) gets `request_timeout`."""
    timeout = dict(request.extensions.get("timeout") or {})
    seconds = request_timeout(request.method)
    for part in ("connect", "read", "write", "pool"):
        if timeout.get(part) is None:
            timeout[part] = seconds
    request.extensions = {**request.extensions, "timeout": timeout}


def checked_answer(response: httpx2.Response) -> None:
    """Response hook: refuses a commit id or ETag that is no name for the cache, and caps an API answer's size."""
    request = response.request
    where = f"{request.method} {request.url.path}"
    commit = response.headers.get(constants.HUGGINGFACE_HEADER_X_REPO_COMMIT)
    if commit is not None:
        checked_commit(commit, f"the {constants.HUGGINGFACE_HEADER_X_REPO_COMMIT} header of the answer to {where}")
    if request.method == "HEAD":
        etag = response.headers.get(constants.HUGGINGFACE_HEADER_X_LINKED_ETAG) or response.headers.get("ETag")
        name = etag.removeprefix("W/").strip('"') if etag is not None else None
        if name is not None and not CACHE_NAME.fullmatch(name):
            raise HubAnswerError(f"the answer to {where} has the ETag {name[:80]!r}, which is no file name")
    if is_api_answer(request):
        size = response.headers.get("Content-Length", "")
        if size.isdigit() and int(size) > MAX_API_ANSWER:
            raise HubAnswerError(f"the answer to {where} is {counted(int(size), 'byte')}, over the {LIMIT} allowed")
        response.stream = CappedStream(response.stream, where)


def is_api_answer(request: httpx2.Request) -> bool:
    """An answer of the Hub's JSON API (not a file, which the Hub may serve from /api/resolve-cache/)."""
    path = request.url.path
    return request.method != "HEAD" and path.startswith("/api/") and not path.startswith("/api/resolve-cache/")


class CappedStream(httpx2.SyncByteStream):
    """An answer's body that stops with a HubAnswerError once it passes MAX_API_ANSWER bytes."""

    def __init__(self, stream: httpx2.SyncByteStream, where: str) -> None:
        self.stream = stream
        self.where = where

    def __iter__(self) -> Iterator[bytes]:
        received = 0
        for chunk in self.stream:
            received += len(chunk)
            if received > MAX_API_ANSWER:
                raise HubAnswerError(f"the answer to {self.where} is over the {LIMIT} allowed")
            yield chunk

    def close(self) -> None:
        self.stream.close()


def hub_client() -> httpx2.Client:
    """huggingface_hub's own HTTP client (offline mode, request ids, redirects), with the hooks above."""
    client = default_client_factory()
    client.event_hooks["request"] += [registers_token, with_timeout]
    client.event_hooks["response"].append(checked_answer)
    return client


def guard_hub_client() -> None:
    """Makes huggingface_hub in this process use `hub_client` (once; later calls do nothing)."""
    global _guarded
    with _installed:
        if not _guarded:
            set_client_factory(hub_client)
            _guarded = True


__all__ = [
    "COMMIT",
    "MAX_API_ANSWER",
    "HubAnswerError",
    "HubRequestError",
    "checked_commit",
    "guard_hub_client",
    "hub_client",
    "hub_error_line",
    "hub_errors",
]
