"""Which endpoint of the Hub stand-in answers a request (the list is in hub_standin.py)."""

from __future__ import annotations

import mimetypes

import yaml
from hub_standin_http import Request, Response, split_revision
from hub_standin_repo_api import ENDPOINTS, URL_PREFIX, USER, card_data
from hub_standin_space_api import SPACE_ENDPOINTS
from hub_standin_store import DEFAULT_BRANCH, HubError, Store, git_blob_oid

TYPES = {"models": "model", "datasets": "dataset", "spaces": "space"}


def route(store: Store, request: Request) -> Response:
    segments = request.segments
    if segments[:1] == ["api"]:
        return _api(store, request, segments[1:])
    return _resolve(store, request, segments)


def _api(store: Store, request: Request, segments: list[str]) -> Response:
    key = (request.method, "/".join(segments))
    if key == ("POST", "repos/create"):
        return _create_repo(store, request)
    if key == ("DELETE", "repos/delete"):
        request.require_token()
        store.delete_repo(*_named_repo(request.json()))
        return Response.json({})
    if key == ("POST", "validate-yaml"):
        return _validate_yaml(request.json().get("content", ""))
    if key == ("GET", "whoami-v2"):
        request.require_token()
        return Response.json({"type": "user", "name": USER, "fullname": "Hub stand-in", "orgs": []})
    if len(segments) >= 3 and segments[0] in TYPES:
        return _repo_api(store, request, TYPES[segments[0]], f"{segments[1]}/{segments[2]}", segments[3:])
    raise HubError(404, "", f"the Hub stand-in has no endpoint {request.method} /api/{'/'.join(segments)}")


def _repo_api(store: Store, request: Request, repo_type: str, repo_id: str, rest: list[str]) -> Response:
    action = rest[0] if rest else "revision"
    endpoint = ENDPOINTS.get((request.method, action)) or SPACE_ENDPOINTS.get((request.method, action))
    if endpoint is None:
        raise HubError(404, "", f"the Hub stand-in has no endpoint {request.method} .../{'/'.join(rest)}")
    with store.lock:
        repo = request.readable_repo(store, repo_type, repo_id)
        revision, tail = split_revision(rest[1:]) if len(rest) > 1 else (DEFAULT_BRANCH, [])
        return endpoint(store, request, repo, revision, tail)


def _resolve(store: Store, request: Request, segments: list[str]) -> Response:
    """HEAD or GET /[datasets/|spaces/]NS/NAME/resolve/REV/PATH: a file as the Hub serves a regular git blob."""
    repo_type = {"datasets": "dataset", "spaces": "space"}.get(segments[0], "model")
    segments = segments[1:] if repo_type != "model" else segments
    if len(segments) < 5 or segments[2] != "resolve" or request.method not in ("GET", "HEAD"):
        raise HubError(404, "", f"the Hub stand-in has no page {request.method} /{'/'.join(request.segments)}")
    revision, tail = split_revision(segments[3:])
    path = "/".join(tail)
    with store.lock:
        repo = request.readable_repo(store, repo_type, f"{segments[0]}/{segments[1]}")
        commit = store.resolve(repo, revision)
    if path not in commit.files:
        raise HubError(404, "EntryNotFound", f"Entry not found: {path}", commit=commit.oid)
    data = commit.files[path]
    headers = {
        "Content-Type": mimetypes.guess_type(path)[0] or "application/octet-stream",
        "ETag": f'"{git_blob_oid(data)}"',
        "X-Repo-Commit": commit.oid,
        "Accept-Ranges": "bytes",
    }
    return Response(200, data, headers, ranged=True)


def _create_repo(store: Store, request: Request) -> Response:
    """Creates a repo; 409 with the repo's url when it exists (create_repo(exist_ok=True) reads that url)."""
    request.require_token()
    payload = request.json()
    repo_type, repo_id = _named_repo(payload)
    if repo_type == "space" and not payload.get("sdk"):
        raise HubError(400, "", "a Space needs an sdk")
    private = bool(payload.get("private")) or payload.get("visibility") == "private"
    url = f"{request.base_url}/{URL_PREFIX[repo_type]}{repo_id}"
    try:
        store.create_repo(repo_type, repo_id, private, payload.get("sdk"))
    except HubError as error:
        return Response.json({"error": error.message, "url": url}, error.status)
    return Response.json({"url": url, "name": repo_id})


def _named_repo(payload: dict) -> tuple[str, str]:
    repo_type, name, organization = payload.get("type") or "model", payload.get("name"), payload.get("organization")
    if repo_type not in URL_PREFIX or not name or "/" in name or (organization and "/" in organization):
        raise HubError(400, "", f"bad repo type or name: {repo_type!r}, {organization!r}/{name!r}")
    return repo_type, f"{organization or USER}/{name}"


def _validate_yaml(content: str) -> Response:
    try:
        card_data(content)
    except yaml.YAMLError as error:
        return Response.json({"errors": [{"message": f"Invalid YAML in README.md: {error}"}]}, 400)
    return Response.json({"errors": [], "warnings": []})
