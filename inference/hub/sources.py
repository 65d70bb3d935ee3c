"""`hf://datasets/ORG/NAME[@REVISION][/PATH]` as a folder: a run shared on the Hub, read where a local folder is read.

The repo is downloaded with `huggingface_hub.snapshot_download` into the Hugging Face cache, once: a later call
finds the files there (with offline mode on, or the Hub unreachable, the cached snapshot is used as it is). The
folder returned is the cache's: callers read it and never write there. Whatever the server answers, nothing is
written outside the cache (`snapshot.fenced_snapshot`), and an answer no Hub sends is one line naming the repo.
"""

from __future__ import annotations

import os
from pathlib import Path

import httpx2
from huggingface_hub import constants
from huggingface_hub.errors import (
    LocalEntryNotFoundError,
    OfflineModeIsEnabled,
    RepositoryNotFoundError,
    RevisionNotFoundError,
)

from longform_eval.dataset_builder.repo_ids import checked_repo_id

from ..url_secrets import mask_url_secrets
from .client import HubAnswerError
from .paths import (
    DATASETS_PREFIX,
    HUB_PREFIX,
    hub_or_local_path,
    hub_path,
    hub_path_of_page,
    is_hub_path,
    join,
    missing_folder,
    parse_hub_path,
)
from .snapshot import fenced_snapshot


def local_path(value: str | os.PathLike) -> Path:
    """A local path unchanged; an `hf://datasets/...` path (or a dataset's page URL, `hub_path_of_page`) as the
    cached snapshot folder it names (read-only).

    Raises:
        ValueError: `value` starts with `hf://` but is not of the form `hf://datasets/ORG/NAME[@REVISION][/PATH]`.
        FileNotFoundError: the repo (or PATH in it) does not exist, or is not cached while the Hub is out of reach.
    """
    if isinstance(value, str) and "://" in value and not is_hub_path(value):
        value = hub_path_of_page(value) or value
    if not is_hub_path(value):
        return Path(value)
    repo_id, revision, path = parse_hub_path(str(value))
    snapshot = Path(download(str(value), repo_id, revision, path))
    found = snapshot / path if path else snapshot
    if not found.exists():
        raise FileNotFoundError(f"{value}: no {path!r} in the dataset repo {repo_id}")
    return found


def download(value: str, repo_id: str, revision: str | None, path: str) -> str:
    """The snapshot folder, with only `path` (file or folder) fetched when one is named."""
    patterns = [path, f"{path}/"] if path else None  # `dir/` matches everything under dir
    try:
        return fenced_snapshot(repo_id, repo_type="dataset", revision=revision, allow_patterns=patterns)
    except RepositoryNotFoundError as error:
        raise FileNotFoundError(
            f"{value}: no dataset repo {repo_id} on {mask_url_secrets(constants.ENDPOINT)} (or it is private and the "
            "token in use cannot read it)"
        ) from error
    except RevisionNotFoundError as error:
        raise FileNotFoundError(f"{value}: the dataset repo {repo_id} has no revision {revision!r}") from error
    except LocalEntryNotFoundError as error:
        raise FileNotFoundError(f"{value}: not in the local Hugging Face cache and {why_unreachable(error)}") from error
    except HubAnswerError as error:
        raise HubAnswerError(f"{value}: {error}") from None


def why_unreachable(error: LocalEntryNotFoundError) -> str:
    if constants.HF_HUB_OFFLINE or isinstance(error.__cause__, OfflineModeIsEnabled):
        return "offline mode is on (HF_HUB_OFFLINE); unset it to download the repo"
    hub = f"the Hub at {mask_url_secrets(constants.ENDPOINT)}"
    if isinstance(error.__cause__, httpx2.TimeoutException):
        return f"{hub} did not answer within {constants.HF_HUB_DOWNLOAD_TIMEOUT} s (HF_HUB_DOWNLOAD_TIMEOUT)"
    return f"{hub} cannot be reached"


__all__ = [
    "DATASETS_PREFIX",
    "HUB_PREFIX",
    "checked_repo_id",
    "hub_or_local_path",
    "hub_path",
    "hub_path_of_page",
    "is_hub_path",
    "join",
    "local_path",
    "missing_folder",
    "parse_hub_path",
]
