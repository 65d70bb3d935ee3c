"""A repo's snapshot in the Hugging Face cache, fetched so that nothing the server answers becomes a path outside it.

`snapshot_download` asked for a branch trusts the commit id the server names it by (huggingface_hub 2.4 makes
`trees/<id>.json` and `snapshots/<id>/` of it: docs/hub.md, "Known upstream issue"). So the branch is resolved here
first, by `repo_info`, the id checked to be 40 hex digits, and `snapshot_download` given that id; the branch's ref
in the cache (`refs/<branch>`, read when the Hub is out of reach) is written here, since huggingface_hub writes it
only when it resolves the branch itself. The HTTP client's checks (`client.py`) cover the answers to the calls
`snapshot_download` makes then (`X-Repo-Commit`, `ETag`); huggingface_hub refuses a file path with `..` itself.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import httpx2
from huggingface_hub import HfApi, constants, snapshot_download
from huggingface_hub.errors import HfHubHTTPError, LocalEntryNotFoundError, OfflineModeIsEnabled
from huggingface_hub.file_download import repo_folder_name

from longform_eval.common.atomic import write_bytes_atomic

from ..url_secrets import mask_url_secrets
from .client import COMMIT, HubAnswerError, checked_commit, guard_hub_client

DEFAULT_BRANCH = constants.DEFAULT_REVISION
UNREACHABLE = (httpx2.TransportError, OfflineModeIsEnabled)  # no answer: the cached snapshot is used, if any


def fenced_snapshot(
    repo_id: str,
    *,
    repo_type: str = "dataset",
    revision: str | None = None,
    allow_patterns: list[str] | None = None,
    api: HfApi | None = None,
) -> str:
    """`snapshot_download` of the repo at `revision` (default its main branch), every write inside the cache: the
    snapshot folder. Offline, or with the Hub out of reach, the snapshot cached for `revision` (as huggingface_hub).

    Raises:
        HubAnswerError: the server's answer is not a Hub's (not JSON, a wrong shape, a commit id, ETag or file path
            that is no name for the cache, too large), naming the repo and what was wrong.
        huggingface_hub's errors otherwise (RepositoryNotFoundError, RevisionNotFoundError, LocalEntryNotFoundError).
    """
    guard_hub_client()
    api = api or HfApi()
    try:
        commit, folder = downloaded(api, repo_id, repo_type, revision, allow_patterns)
    except HfHubHTTPError:  # an HTTP error the Hub sends (some are ValueErrors too): huggingface_hub's own
        raise
    except (ValueError, TypeError, KeyError) as error:  # HubAnswerError, or an answer huggingface_hub could not read
        where = f"{mask_url_secrets(api.endpoint)} answered for the {repo_type} repo {repo_id}"
        raise HubAnswerError(f"refused what {where}: {what_was_wrong(error)}") from None
    if not COMMIT.fullmatch(Path(folder).name):  # a ref in the cache that no check of this module wrote
        raise HubAnswerError(f"the cached snapshot of the {repo_type} repo {repo_id} is not named by a commit id")
    if commit is not None:
        remember_ref(repo_id, repo_type, revision or DEFAULT_BRANCH, commit)
    return folder


def downloaded(
    api: HfApi, repo_id: str, repo_type: str, revision: str | None, allow_patterns: list[str] | None
) -> tuple[str | None, str]:
    """(the commit id checked, None when the Hub was not asked or did not answer; the snapshot folder)."""
    unreachable: Exception | None = None
    try:
        commit = current_commit(api, repo_id, repo_type, revision)
    except UNREACHABLE as error:
        commit, unreachable = None, error
    try:
        folder = snapshot_download(
            repo_id,
            repo_type=repo_type,
            revision=commit or revision,
            allow_patterns=allow_patterns,
            local_files_only=commit is None,
            endpoint=api.endpoint,
            token=api.token,
        )
    except LocalEntryNotFoundError as error:
        error.__cause__ = error.__cause__ or unreachable  # why the Hub was not asked: offline, no answer in time
        raise
    return commit, folder


def current_commit(api: HfApi, repo_id: str, repo_type: str, revision: str | None) -> str | None:
    """The commit id `revision` names now (checked); None when the Hub answers with a server error (5xx).

    Raises:
        UNREACHABLE: offline mode is on, or the Hub does not answer (in time).
    """
    try:
        info = api.repo_info(repo_id, repo_type=repo_type, revision=revision)
    except HfHubHTTPError as error:
        if error.response is not None and error.response.status_code >= 500:
            return None
        raise
    return checked_commit(getattr(info, "sha", None), f"the repo's info (GET /api/{repo_type}s/{repo_id})")


def remember_ref(repo_id: str, repo_type: str, revision: str, commit: str) -> None:
    """`refs/<revision>` of the repo's cache folder holding `commit`, as huggingface_hub keeps it (best effort, as
    huggingface_hub's own: a read-only cache is used as it is)."""
    if revision == commit or not revision or "\\" in revision or any(p in ("", ".", "..") for p in revision.split("/")):
        return
    ref = Path(constants.HF_HUB_CACHE) / repo_folder_name(repo_id=repo_id, repo_type=repo_type) / "refs" / revision
    with contextlib.suppress(OSError):
        if not ref.is_file() or ref.read_text(encoding="utf-8") != commit:
            write_bytes_atomic(ref, commit.encode())


def what_was_wrong(error: BaseException) -> str:
    if isinstance(error, HubAnswerError):
        return str(error)
    if isinstance(error, json.JSONDecodeError):
        return f"an answer that is not JSON ({error.msg} at byte {error.pos})"
    if isinstance(error, KeyError):
        return f"an answer without the field {error.args[0]!r}" if error.args else "an answer that lacks a field"
    return "an answer of the wrong shape (" + " ".join(f"{type(error).__name__}: {error}".split())[:300] + ")"


__all__ = ["fenced_snapshot"]
