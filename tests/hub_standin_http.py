"""Requests and answers of the Hub stand-in (hub_standin.py), as its routes see them."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field

from hub_standin_store import HubError, Repo, Store


@dataclass
class Request:
    method: str
    segments: list[str]  # the URL path, split on "/" then unquoted
    query: dict[str, str]
    headers: Mapping[str, str]
    body: bytes
    base_url: str

    @property
    def authorized(self) -> bool:
        return bool(self.headers.get("Authorization"))

    def json(self) -> dict:
        try:
            data = json.loads(self.body or b"{}")
        except ValueError as error:
            raise HubError(400, "", f"request body is not JSON: {error}") from error
        if not isinstance(data, dict):
            raise HubError(400, "", "request body is not a JSON object")
        return data

    def flag(self, name: str) -> bool:
        return self.query.get(name, "").lower() in ("1", "true")

    def require_token(self) -> None:
        """Writes need a token (any token: the stand-in has one user)."""
        if not self.authorized:
            raise HubError(401, "", "Invalid credentials in Authorization header")

    def readable_repo(self, store: Store, repo_type: str, repo_id: str) -> Repo:
        """The repo, answered as missing (as the Hub does) when it is private and no token came."""
        repo = store.repo(repo_type, repo_id)
        if repo.private and not self.authorized:
            raise HubError(401, "RepoNotFound", "Repository not found")
        return repo


@dataclass
class Response:
    status: int
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    ranged: bool = False  # a file body: GET honours a Range header

    @classmethod
    def json(cls, data: object, status: int = 200) -> Response:
        return cls(status, json.dumps(data).encode(), {"Content-Type": "application/json"})

    @classmethod
    def error(cls, status: int, message: str, code: str = "", commit: str | None = None) -> Response:
        response = cls.json({"error": message}, status)
        response.headers["X-Error-Message"] = message.splitlines()[0] if message else ""
        if code:
            response.headers["X-Error-Code"] = code
        if commit:
            response.headers["X-Repo-Commit"] = commit
        return response


def split_revision(segments: list[str]) -> tuple[str, list[str]]:
    """(revision, rest): a revision is one segment, or three for an unquoted refs/pr/N or refs/convert/X."""
    if not segments or not segments[0]:
        raise HubError(404, "RevisionNotFound", "no revision in the URL")
    if segments[0] == "refs" and len(segments) >= 3:
        return "/".join(segments[:3]), segments[3:]
    return segments[0], segments[1:]
