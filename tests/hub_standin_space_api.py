"""The Hub stand-in's Space settings: /api/spaces/NS/NAME/variables and /secrets (see hub_standin.py).

As huggingface_hub 2.4's `add_space_variable`, `get_space_variables`, `delete_space_variable`, `add_space_secret`,
`get_space_secrets` and `delete_space_secret` call them: a JSON body {key, value, description?} to add or update,
{key} to delete. Variables come back as {key: {value, description, updatedAt}}; a secret's value never comes back
(the stand-in keeps it for the tests: `HubStandIn.secrets`). Every call needs a token, as on the Hub.
"""

from __future__ import annotations

from collections.abc import Callable

from hub_standin_http import Request, Response
from hub_standin_store import HubError, Repo, Store, now_iso

Endpoint = Callable[[Store, Request, Repo, str, list[str]], Response]


def _settings(request: Request, repo: Repo, kind: str) -> dict[str, dict]:
    request.require_token()
    if repo.repo_type != "space":
        raise HubError(404, "", f"a {repo.repo_type} repo has no {kind}")
    return repo.variables if kind == "variables" else repo.secrets


def _set(request: Request, repo: Repo, kind: str) -> None:
    payload = request.json()
    key, value = payload.get("key"), payload.get("value")
    if not isinstance(key, str) or not key or not isinstance(value, str):
        raise HubError(400, "", f"a {kind[:-1]} needs a key and a text value")
    entry = {"value": value, "updatedAt": now_iso()}
    if payload.get("description") is not None:
        entry["description"] = payload["description"]
    _settings(request, repo, kind)[key] = entry


def _delete(request: Request, repo: Repo, kind: str) -> None:
    key = request.json().get("key")
    if _settings(request, repo, kind).pop(key, None) is None:
        raise HubError(404, "", f"no {kind[:-1]} {key!r}")


def _listed(request: Request, repo: Repo, kind: str) -> Response:
    shown = ("value", "description", "updatedAt") if kind == "variables" else ("description", "updatedAt")
    entries = _settings(request, repo, kind)
    return Response.json({key: {k: v for k, v in entry.items() if k in shown} for key, entry in entries.items()})


def get_variables(store: Store, request: Request, repo: Repo, revision: str, tail: list[str]) -> Response:
    return _listed(request, repo, "variables")


def add_variable(store: Store, request: Request, repo: Repo, revision: str, tail: list[str]) -> Response:
    _set(request, repo, "variables")
    return _listed(request, repo, "variables")


def delete_variable(store: Store, request: Request, repo: Repo, revision: str, tail: list[str]) -> Response:
    _delete(request, repo, "variables")
    return _listed(request, repo, "variables")


def get_secrets(store: Store, request: Request, repo: Repo, revision: str, tail: list[str]) -> Response:
    return _listed(request, repo, "secrets")


def add_secret(store: Store, request: Request, repo: Repo, revision: str, tail: list[str]) -> Response:
    _set(request, repo, "secrets")
    return Response.json({})


def delete_secret(store: Store, request: Request, repo: Repo, revision: str, tail: list[str]) -> Response:
    _delete(request, repo, "secrets")
    return Response.json({})


SPACE_ENDPOINTS: dict[tuple[str, str], Endpoint] = {
    ("GET", "variables"): get_variables,
    ("POST", "variables"): add_variable,
    ("DELETE", "variables"): delete_variable,
    ("GET", "secrets"): get_secrets,
    ("POST", "secrets"): add_secret,
    ("DELETE", "secrets"): delete_secret,
}
