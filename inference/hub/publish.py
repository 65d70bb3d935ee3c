"""Upload a release: per repo, `create_repo(exist_ok=True)` and at most one commit holding only the changed files.

A file is unchanged when the Hub's copy has the same git blob id (or, for an LFS file, the same sha256); a repo
with nothing changed gets no commit. huggingface_hub's `create_commit` skips unchanged files as well.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass

from huggingface_hub import CommitOperationAdd, HfApi
from huggingface_hub.errors import EntryNotFoundError, RepositoryNotFoundError, RevisionNotFoundError
from huggingface_hub.hf_api import RepoFile
from huggingface_hub.utils.sha import git_hash

from longform_eval.dataset_builder.hub import HubUnavailableError, offline_message, unreachable_errors

from .release_plan import Release, RepoPlan


@dataclass(frozen=True)
class RepoOutcome:
    """What publishing one repo did: the paths it committed (none: unchanged) and the commit's id."""

    repo: RepoPlan
    updated: list[str]
    commit: str | None = None

    def line(self) -> str:
        where = f"{self.repo.repo_type} {self.repo.repo_id}"
        if not self.updated:
            return f"{where}: unchanged"
        count = len(self.updated)
        return f"{where}: {count} file{'s' if count != 1 else ''} updated (commit {self.commit[:12]})"


def remote_files(api: HfApi, repo: RepoPlan) -> dict[str, RepoFile]:
    """The files now on the Hub in `repo`'s main branch (none for a repo without a commit yet)."""
    try:
        entries = api.list_repo_tree(repo.repo_id, repo_type=repo.repo_type, recursive=True)
        return {entry.path: entry for entry in entries if isinstance(entry, RepoFile)}
    except (EntryNotFoundError, RevisionNotFoundError):
        return {}


def is_same(remote: RepoFile | None, data: bytes) -> bool:
    if remote is None:
        return False
    if remote.lfs is not None:
        return remote.lfs.sha256 == hashlib.sha256(data).hexdigest()
    return remote.blob_id == git_hash(data)


def changed_paths(api: HfApi, repo: RepoPlan) -> list[str]:
    remote = remote_files(api, repo)
    return sorted(path for path, data in repo.files.items() if not is_same(remote.get(path), data))


def check_private(api: HfApi, repo: RepoPlan) -> None:
    """A repo meant to be private (restricted data) must be private on the Hub too, else nothing is uploaded."""
    if repo.private and not api.repo_info(repo.repo_id, repo_type=repo.repo_type).private:
        raise ValueError(
            f"{repo.repo_type} {repo.repo_id} exists and is public, but its data may only go to a private repo; "
            "make it private on the Hub (or delete it) and publish again"
        )


def publish_repo(api: HfApi, repo: RepoPlan, version: str) -> RepoOutcome:
    api.create_repo(
        repo.repo_id, repo_type=repo.repo_type, private=repo.private, exist_ok=True, space_sdk=repo.space_sdk
    )
    check_private(api, repo)
    changed = changed_paths(api, repo)
    if not changed:
        return RepoOutcome(repo, [])
    info = api.create_commit(
        repo.repo_id,
        repo_type=repo.repo_type,
        operations=[CommitOperationAdd(path, repo.files[path]) for path in changed],
        commit_message=f"longform-eval {version}: {repo.role} ({len(changed)} files)",
    )
    return RepoOutcome(repo, changed, info.oid)


def publish_release(
    release: Release, api: HfApi | None = None, report: Callable[[str], None] = print
) -> list[RepoOutcome]:
    """Create or update every repo of `release`; `report` gets one line per repo as it is done.

    Raises:
        HubUnavailableError: offline mode is on, or the Hub cannot be reached (the repos done so far stay done).
    """
    message = offline_message(f"publish the release to {release.org}")
    if message:
        raise HubUnavailableError(message)
    api = api or HfApi()
    outcomes = []
    for repo in release.repos:
        try:
            outcome = publish_repo(api, repo, release.version)
        except RepositoryNotFoundError as error:
            raise ValueError(f"{repo.repo_type} {repo.repo_id}: not found or not yours ({error})") from error
        except unreachable_errors() as error:
            raise HubUnavailableError(f"cannot publish {repo.repo_id}: the Hub is unreachable ({error})") from error
        report(outcome.line())
        outcomes.append(outcome)
    return outcomes
