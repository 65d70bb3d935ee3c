"""Upload a release: per repo, `create_repo(exist_ok=True)` and at most one commit holding only the changed files;
then a Space's settings (`space_apply`: variables, secrets given, its private dataset repos made first).

A file is unchanged when the Hub's copy has the same git blob id (or, for an LFS file, the same sha256): see
`remote.is_same`. A repo with nothing changed gets no commit. No file is uploaded if any holds a secret in use
(`upload_check`); a Hub error is one line naming the repo, scrubbed (`client.hub_errors`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from huggingface_hub import CommitOperationAdd, HfApi
from huggingface_hub.errors import RepositoryNotFoundError

from longform_eval.common.plurals import counted
from longform_eval.dataset_builder.hub import HubUnavailableError, offline_message, unreachable_errors

from ..environment_secrets import register_environment_secrets
from ..secret_values import register_secret, scrubbed_line
from .client import guard_hub_client, hub_error_line, hub_errors
from .release_plan import Release, RepoPlan
from .remote import changed_paths, remote_files
from .space_apply import apply_settings, prepare_private_datasets
from .upload_check import refuse_secrets

T = TypeVar("T")


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
        return f"{where}: {counted(len(self.updated), 'file')} updated (commit {self.commit[:12]})"


def check_private(api: HfApi, repo: RepoPlan) -> None:
    """A repo meant to be private (restricted data, or --private) must be private on the Hub too, else nothing is
    uploaded: `create_repo(exist_ok=True)` leaves an existing repo's visibility as it is."""
    if not repo.private or api.repo_info(repo.repo_id, repo_type=repo.repo_type).private:
        return
    if repo.restricted:
        why = "its data has no open licence and goes only to a private repo"
        then = "make it private on the Hub (or delete it) and publish again"
    else:
        why = "--private asks for private repos"
        then = "make it private on the Hub (or delete it) and publish again, or publish without --private"
    raise ValueError(f"{repo.repo_type} {repo.repo_id} exists and is public, but {why}: {then}")


def publish_repo(api: HfApi, repo: RepoPlan, version: str) -> RepoOutcome:
    api.create_repo(
        repo.repo_id, repo_type=repo.repo_type, private=repo.private, exist_ok=True, space_sdk=repo.space_sdk
    )
    check_private(api, repo)
    changed = changed_paths(remote_files(api, repo.repo_id, repo.repo_type), repo.files)
    if not changed:
        return RepoOutcome(repo, [])
    info = api.create_commit(
        repo.repo_id,
        repo_type=repo.repo_type,
        operations=[CommitOperationAdd(path, repo.files[path]) for path in changed],
        commit_message=f"longform-eval {version}: {repo.role} ({counted(len(changed), 'file')})",
    )
    return RepoOutcome(repo, changed, info.oid)


def publish_release(
    release: Release,
    api: HfApi | None = None,
    report: Callable[[str], None] = print,
    secret_values: Mapping[str, str] | None = None,
) -> list[RepoOutcome]:
    """Create or update every repo of `release`; `report` gets one line per repo as it is done, and one per Space
    setting. `secret_values`: the Spaces' secrets to set (name -> value; never reported).

    Raises:
        HubUnavailableError: offline mode is on, or the Hub cannot be reached (the repos done so far stay done).
        ValueError: a repo is not the publisher's, or exists and is public but must be private (before any upload
            for a Space's private dataset repos).
        SecretInUpload: a file of the release holds a secret in use (before any Hub call).
        HubRequestError: the Hub answered a request with an HTTP error.
    """
    message = offline_message(f"publish the release to {release.org}")
    if message:
        raise HubUnavailableError(message)
    register_environment_secrets()
    for value in (secret_values or {}).values():
        register_secret(value)
    refuse_secrets(
        (f"{repo.repo_type} {repo.repo_id}: {path}", data)
        for repo in release.repos
        for path, data in repo.files.items()
    )
    guard_hub_client()  # a timeout on every call, the answers checked (client.py)
    api = api or HfApi()
    for repo in release.repos:
        if repo.settings is not None:
            on_hub(repo, lambda repo=repo: prepare_private_datasets(api, repo.settings))
    outcomes = []
    for repo in release.repos:
        outcome = on_hub(repo, lambda repo=repo: publish_repo(api, repo, release.version))
        report(outcome.line())
        if repo.settings is not None:
            for line in on_hub(repo, lambda repo=repo: apply_settings(api, repo.repo_id, repo.settings, secret_values)):
                report(line)
        outcomes.append(outcome)
    return outcomes


def on_hub(repo: RepoPlan, call: Callable[[], T]) -> T:
    """`call()`, its Hub errors in one line naming `repo`, scrubbed of the secrets in use."""
    where = f"{repo.repo_type} {repo.repo_id}"
    try:
        with hub_errors(f"publish {where}"):
            try:
                return call()
            except RepositoryNotFoundError as error:
                raise ValueError(f"{where}: not found or not yours ({hub_error_line(error)})") from None
    except unreachable_errors() as error:
        unreachable = f"cannot publish {repo.repo_id}: the Hub is unreachable ({error})"
        raise HubUnavailableError(scrubbed_line(unreachable)) from None
