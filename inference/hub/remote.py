"""What a Hub repo holds now, file by file, and whether a file to upload is already there byte for byte.

`publish` and `push-run` both compare before they commit, rather than leave it to `create_commit` (which also skips
files the repo holds): so each can say "unchanged" and make no commit at all when nothing changed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

from huggingface_hub import HfApi
from huggingface_hub.errors import EntryNotFoundError, RevisionNotFoundError
from huggingface_hub.hf_api import RepoFile
from huggingface_hub.utils.sha import git_hash


def remote_files(api: HfApi, repo_id: str, repo_type: str, revision: str | None = None) -> dict[str, RepoFile]:
    """The files of the repo at `revision` (default: its main branch) by path; none for a repo without a commit."""
    try:
        entries = api.list_repo_tree(repo_id, repo_type=repo_type, revision=revision, recursive=True)
        return {entry.path: entry for entry in entries if isinstance(entry, RepoFile)}
    except (EntryNotFoundError, RevisionNotFoundError):
        return {}


def is_same(remote: RepoFile | None, data: bytes) -> bool:
    """Whether the Hub's file holds `data`: the same sha256 for an LFS file, else the same git blob id."""
    if remote is None:
        return False
    if remote.lfs is not None:
        return remote.lfs.sha256 == hashlib.sha256(data).hexdigest()
    return remote.blob_id == git_hash(data)


def changed_paths(remote: Mapping[str, RepoFile], files: Mapping[str, bytes]) -> list[str]:
    """The paths of `files` whose bytes the repo does not hold there already, sorted."""
    return sorted(path for path, data in files.items() if not is_same(remote.get(path), data))


__all__ = ["changed_paths", "is_same", "remote_files"]
