"""In-memory state of the local Hub stand-in: repos, their commits and branches (see hub_standin.py)."""

from __future__ import annotations

import hashlib
import itertools
import re
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone

REPO_TYPES = ("model", "dataset", "space")
COMMIT_OID = re.compile(r"[0-9a-f]{40}")
DEFAULT_BRANCH = "main"


class HubError(Exception):
    """An answer the Hub gives as an HTTP error: status, X-Error-Code (or "") and message."""

    def __init__(self, status: int, code: str, message: str, commit: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.commit = commit


def git_blob_oid(data: bytes) -> str:
    """The git blob sha1 of `data`, which the Hub reports as a regular file's oid and ETag."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass(frozen=True)
class Commit:
    oid: str
    parent: str | None
    message: str
    description: str
    date: str
    files: Mapping[str, bytes]
    paths: tuple[str, ...]  # paths whose content this commit changed (added, modified or deleted)


@dataclass
class Repo:
    repo_type: str
    repo_id: str
    private: bool
    sdk: str | None
    created: str
    commits: dict[str, Commit] = field(default_factory=dict)
    branches: dict[str, str] = field(default_factory=dict)
    variables: dict[str, dict] = field(default_factory=dict)  # a Space's: key -> value, description, updatedAt
    secrets: dict[str, dict] = field(default_factory=dict)  # a Space's: the same fields (the value never shown)

    def history(self, head: str) -> list[Commit]:
        """Commits reachable from `head`, newest first."""
        out, oid = [], head
        while oid is not None:
            commit = self.commits[oid]
            out.append(commit)
            oid = commit.parent
        return out


@dataclass
class Change:
    """The operations of one commit request."""

    files: dict[str, bytes] = field(default_factory=dict)
    deleted_files: list[str] = field(default_factory=list)
    deleted_folders: list[str] = field(default_factory=list)


class Store:
    """Every repo of one stand-in; all access goes through one lock."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self._repos: dict[tuple[str, str], Repo] = {}
        self._counter = itertools.count()

    def create_repo(self, repo_type: str, repo_id: str, private: bool, sdk: str | None) -> Repo:
        with self.lock:
            if (repo_type, repo_id) in self._repos:
                raise HubError(409, "", f"You already created this {repo_type} repo")
            repo = Repo(repo_type, repo_id, private, sdk, now_iso())
            self._repos[(repo_type, repo_id)] = repo
            initial = self._new_commit(None, "initial commit", "", {}, ())
            repo.commits[initial.oid] = initial
            repo.branches[DEFAULT_BRANCH] = initial.oid
            return repo

    def delete_repo(self, repo_type: str, repo_id: str) -> None:
        with self.lock:
            self.repo(repo_type, repo_id)
            del self._repos[(repo_type, repo_id)]

    def repos(self) -> list[Repo]:
        with self.lock:
            return list(self._repos.values())

    def repo(self, repo_type: str, repo_id: str) -> Repo:
        with self.lock:
            repo = self._repos.get((repo_type, repo_id))
            if repo is None:
                raise HubError(404, "RepoNotFound", "Repository not found")
            return repo

    def resolve(self, repo: Repo, revision: str) -> Commit:
        """The commit a branch name or a full commit oid names."""
        with self.lock:
            if revision in repo.branches:
                return repo.commits[repo.branches[revision]]
            if COMMIT_OID.fullmatch(revision) and revision in repo.commits:
                return repo.commits[revision]
            raise HubError(404, "RevisionNotFound", f"Invalid rev id: {revision}")

    def create_branch(self, repo: Repo, branch: str, starting_point: str | None) -> None:
        with self.lock:
            if branch in repo.branches:
                raise HubError(409, "", f"Reference refs/heads/{branch} already exists")
            repo.branches[branch] = self.resolve(repo, starting_point or DEFAULT_BRANCH).oid

    def commit(
        self, repo: Repo, branch: str, summary: str, description: str, parent: str | None, change: Change
    ) -> Commit:
        """Applies `change` on top of `branch` (a branch name, not a commit oid) and moves the branch."""
        with self.lock:
            if branch not in repo.branches:
                raise HubError(404, "RevisionNotFound", f"Invalid rev id: {branch}")
            head = repo.commits[repo.branches[branch]]
            if parent is not None and parent != head.oid:
                raise HubError(412, "", "A commit has happened since. Please refresh and try again.")
            files = dict(head.files)
            for path in change.deleted_files:
                if path not in files:
                    raise HubError(404, "EntryNotFound", f"A file with this name doesn't exist: {path}")
                del files[path]
            for folder in change.deleted_folders:
                inside = [path for path in files if path.startswith(folder.rstrip("/") + "/")]
                if not inside:
                    raise HubError(404, "EntryNotFound", f"A folder with this name doesn't exist: {folder}")
                for path in inside:
                    del files[path]
            files.update(change.files)
            _check_no_file_is_a_folder(files)
            changed = sorted(p for p in files.keys() | head.files.keys() if files.get(p) != head.files.get(p))
            commit = self._new_commit(head.oid, summary, description, files, tuple(changed))
            repo.commits[commit.oid] = commit
            repo.branches[branch] = commit.oid
            return commit

    def squash(self, repo: Repo, branch: str, message: str) -> Commit:
        """Replaces the branch's history by one commit holding its current files."""
        with self.lock:
            head = self.resolve(repo, branch) if branch in repo.branches else None
            if head is None:
                raise HubError(404, "RevisionNotFound", f"Invalid rev id: {branch}")
            squashed = self._new_commit(None, message, "", head.files, tuple(sorted(head.files)))
            repo.commits[squashed.oid] = squashed
            repo.branches[branch] = squashed.oid
            return squashed

    def _new_commit(
        self, parent: str | None, message: str, description: str, files: Mapping[str, bytes], paths: Iterable[str]
    ) -> Commit:
        seed = f"{next(self._counter)}\0{parent}\0{message}\0{now_iso()}\0{sorted(files)}".encode()
        return Commit(hashlib.sha1(seed).hexdigest(), parent, message, description, now_iso(), files, tuple(paths))


def _check_no_file_is_a_folder(files: Mapping[str, bytes]) -> None:
    for path in files:
        parts = path.split("/")
        for depth in range(1, len(parts)):
            if "/".join(parts[:depth]) in files:
                raise HubError(400, "", f"{path} is inside {'/'.join(parts[:depth])}, which is a file")


def folder_oid(files: Mapping[str, bytes], folder: str) -> str:
    """A stable id for a folder's content (git tree ids are not needed by any client)."""
    prefix = folder.rstrip("/") + "/" if folder else ""
    listing = "".join(f"{p}\0{git_blob_oid(d)}\n" for p, d in sorted(files.items()) if p.startswith(prefix))
    return hashlib.sha1(listing.encode()).hexdigest()


def is_folder(files: Mapping[str, bytes], path: str) -> bool:
    prefix = path.rstrip("/") + "/"
    return any(p.startswith(prefix) for p in files)


def tree_paths(files: Mapping[str, bytes], folder: str, recursive: bool) -> tuple[list[str], list[str]]:
    """(folders, files) under `folder` ("" = root): direct children, or every descendant when `recursive`."""
    prefix = folder.strip("/") + "/" if folder.strip("/") else ""
    folders: set[str] = set()
    found: list[str] = []
    for path in sorted(files):
        if not path.startswith(prefix):
            continue
        parts = path[len(prefix) :].split("/")
        if recursive:
            found.append(path)
            folders.update(prefix + "/".join(parts[:i]) for i in range(1, len(parts)))
        elif len(parts) == 1:
            found.append(path)
        else:
            folders.add(prefix + parts[0])
    return sorted(folders), found


def last_change(repo: Repo, head: Commit, path: str) -> Commit:
    """The newest commit reachable from `head` that changed `path` or anything under it."""
    prefix = path.rstrip("/") + "/"
    for commit in repo.history(head.oid):
        if any(p == path or p.startswith(prefix) for p in commit.paths):
            return commit
    return head
