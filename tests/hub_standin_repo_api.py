"""The Hub stand-in's endpoints on one repo: /api/TYPE/NS/NAME/ACTION/REV[/PATH] (see hub_standin.py)."""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable
from urllib.parse import parse_qs

import yaml
from hub_standin_http import Request, Response
from hub_standin_store import (
    Change,
    Commit,
    HubError,
    Repo,
    Store,
    folder_oid,
    git_blob_oid,
    is_folder,
    last_change,
    tree_paths,
)

USER = "standin-user"
URL_PREFIX = {"model": "", "dataset": "datasets/", "space": "spaces/"}
FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(\r?\n|\Z)", re.S)

Endpoint = Callable[[Store, Request, Repo, str, list[str]], Response]


def info(store: Store, request: Request, repo: Repo, revision: str, tail: list[str]) -> Response:
    """Repo info at a revision, with the fields model_info / dataset_info / space_info read."""
    commit = store.resolve(repo, revision)
    data = {
        "_id": commit.oid[:24],
        "id": repo.repo_id,
        "author": repo.repo_id.split("/")[0],
        "sha": commit.oid,
        "lastModified": commit.date,
        "createdAt": repo.created,
        "private": repo.private,
        "gated": False,
        "disabled": False,
        "tags": [],
        "downloads": 0,
        "likes": 0,
        "siblings": [
            {"rfilename": path, "size": len(content), "blobId": git_blob_oid(content)}
            for path, content in sorted(commit.files.items())
        ],
        "cardData": _card_data_or_none(commit.files.get("README.md", b"")),
    }
    if repo.repo_type == "model":
        data["modelId"] = repo.repo_id
    if repo.repo_type == "space":
        data.update(sdk=repo.sdk, subdomain=repo.repo_id.replace("/", "-").lower())
    return Response.json(data)


def card_data(readme: bytes | str) -> dict | None:
    """The YAML header of a README, or None when it has none; raises yaml.YAMLError when it does not parse."""
    text = readme.decode("utf-8", "replace") if isinstance(readme, bytes) else readme
    match = FRONT_MATTER.match(text)
    data = yaml.safe_load(match.group(1)) if match else None
    if data is not None and not isinstance(data, dict):
        raise yaml.YAMLError("the YAML header is not a mapping")
    return data


def _card_data_or_none(readme: bytes) -> dict | None:
    try:
        return card_data(readme)
    except yaml.YAMLError:
        return None


def preupload(store: Store, request: Request, repo: Repo, revision: str, tail: list[str]) -> Response:
    """Every file goes as a regular git blob; `oid` (the blob now at that path) lets the client skip it."""
    request.require_token()
    files = store.resolve(repo, revision).files
    answer = []
    for item in request.json().get("files", []):
        entry = {"path": item["path"], "uploadMode": "regular", "shouldIgnore": False}
        if item["path"] in files:
            entry["oid"] = git_blob_oid(files[item["path"]])
        answer.append(entry)
    return Response.json({"files": answer})


def commit(store: Store, request: Request, repo: Repo, revision: str, tail: list[str]) -> Response:
    """An ndjson commit: a header line, then file (base64), deletedFile and deletedFolder lines."""
    request.require_token()
    if request.flag("create_pr"):
        raise HubError(400, "", "the Hub stand-in does not do pull requests")
    header, change = None, Change()
    for line in request.body.splitlines():
        if not line.strip():
            continue
        try:
            item = json.loads(line)
            key, value = item["key"], item["value"]
        except (ValueError, KeyError, TypeError) as error:
            raise HubError(400, "", f"bad commit line {line[:80]!r}: {error}") from error
        if key == "header":
            header = value
        elif key == "file":
            change.files[checked_path(value["path"])] = _file_content(value)
        elif key == "deletedFile":
            change.deleted_files.append(value["path"])
        elif key == "deletedFolder":
            change.deleted_folders.append(value["path"])
        else:
            raise HubError(400, "", f"the Hub stand-in takes regular files only, not {key!r} ({value.get('path')})")
    if header is None or not header.get("summary"):
        raise HubError(400, "", "a commit needs a header line with a summary")
    done = store.commit(
        repo, revision, header["summary"], header.get("description", ""), header.get("parentCommit"), change
    )
    url = f"{request.base_url}/{URL_PREFIX[repo.repo_type]}{repo.repo_id}/commit/{done.oid}"
    return Response.json({"success": True, "commitOid": done.oid, "commitUrl": url, "pullRequestUrl": None})


def _file_content(value: dict) -> bytes:
    if value.get("encoding", "base64") != "base64":
        raise HubError(400, "", f"unsupported encoding {value.get('encoding')!r} for {value.get('path')}")
    return base64.b64decode(value["content"], validate=True)


def checked_path(path: str) -> str:
    parts = path.split("/")
    if not path or any(part in ("", ".", "..") for part in parts) or parts[0] == ".git":
        raise HubError(400, "", f"invalid path in repo: {path!r}")
    return path


def tree(store: Store, request: Request, repo: Repo, revision: str, tail: list[str]) -> Response:
    """Children of a folder (or every descendant with recursive=true); 404 EntryNotFound for anything else."""
    head = store.resolve(repo, revision)
    path = "/".join(tail).strip("/")
    if path and not is_folder(head.files, path):
        raise HubError(404, "EntryNotFound", f"{path} does not exist on {head.oid}", commit=head.oid)
    folders, files = tree_paths(head.files, path, request.flag("recursive"))
    expand = request.flag("expand")
    return Response.json([_entry(repo, head, p, expand) for p in folders + files])


def paths_info(store: Store, request: Request, repo: Repo, revision: str, tail: list[str]) -> Response:
    """The entries of the given paths that exist (form-encoded as the client sends it, or JSON)."""
    head = store.resolve(repo, revision)
    if request.headers.get("Content-Type", "").startswith("application/json"):
        payload = request.json()
        paths, expand = payload.get("paths", []), bool(payload.get("expand"))
    else:
        form = parse_qs(request.body.decode(), keep_blank_values=True)
        paths, expand = form.get("paths", []), form.get("expand", [""])[-1].lower() in ("1", "true")
    paths = [p.strip("/") for p in paths]
    found = [p for p in paths if p in head.files or is_folder(head.files, p)]
    return Response.json([_entry(repo, head, p, expand) for p in found])


def _entry(repo: Repo, head: Commit, path: str, expand: bool) -> dict:
    if path in head.files:
        content = head.files[path]
        entry = {"type": "file", "oid": git_blob_oid(content), "size": len(content), "path": path}
    else:
        entry = {"type": "directory", "oid": folder_oid(head.files, path), "size": 0, "path": path}
    if expand:
        changed = last_change(repo, head, path)
        entry["lastCommit"] = {"id": changed.oid, "title": changed.message, "date": changed.date}
    return entry


def commits(store: Store, request: Request, repo: Repo, revision: str, tail: list[str]) -> Response:
    history = repo.history(store.resolve(repo, revision).oid)
    return Response.json(
        [
            {
                "id": c.oid,
                "title": c.message,
                "message": c.description,
                "authors": [{"user": USER, "avatar": ""}],
                "date": c.date,
            }
            for c in history
        ]
    )


def refs(store: Store, request: Request, repo: Repo, revision: str, tail: list[str]) -> Response:
    branches = [{"name": n, "ref": f"refs/heads/{n}", "targetCommit": oid} for n, oid in repo.branches.items()]
    return Response.json({"branches": branches, "converts": [], "tags": [], "pullRequests": []})


def create_branch(store: Store, request: Request, repo: Repo, branch: str, tail: list[str]) -> Response:
    request.require_token()
    store.create_branch(repo, branch, request.json().get("startingPoint"))
    return Response.json({})


def super_squash(store: Store, request: Request, repo: Repo, branch: str, tail: list[str]) -> Response:
    request.require_token()
    done = store.squash(repo, branch, request.json().get("message") or f"Super-squash branch '{branch}'")
    return Response.json({"commitOid": done.oid})


def settings(store: Store, request: Request, repo: Repo, revision: str, tail: list[str]) -> Response:
    request.require_token()
    payload = request.json()
    if "private" in payload:
        repo.private = bool(payload["private"])
    if "visibility" in payload:
        repo.private = payload["visibility"] == "private"
    return Response.json({})


ENDPOINTS: dict[tuple[str, str], Endpoint] = {
    ("GET", "revision"): info,
    ("POST", "preupload"): preupload,
    ("POST", "commit"): commit,
    ("GET", "tree"): tree,
    ("POST", "paths-info"): paths_info,
    ("GET", "commits"): commits,
    ("GET", "refs"): refs,
    ("POST", "branch"): create_branch,
    ("POST", "super-squash"): super_squash,
    ("PUT", "settings"): settings,
}
