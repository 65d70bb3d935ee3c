"""`hf://datasets/ORG/NAME[@REVISION][/PATH]` as a folder: a run shared on the Hub, read where a local folder is read.

The repo is downloaded with `huggingface_hub.snapshot_download` into the Hugging Face cache, once: a later call
finds the files there (with offline mode on, or the Hub unreachable, the cached snapshot is used as it is). The
folder returned is the cache's: callers read it and never write there.
"""

from __future__ import annotations

import argparse
import os
import re
from pathlib import Path

from huggingface_hub import constants, snapshot_download
from huggingface_hub.errors import (
    HFValidationError,
    LocalEntryNotFoundError,
    OfflineModeIsEnabled,
    RepositoryNotFoundError,
    RevisionNotFoundError,
)
from huggingface_hub.utils import validate_repo_id

from ..url_secrets import mask_url_secrets

HUB_PREFIX = "hf://"
DATASETS_PREFIX = f"{HUB_PREFIX}datasets/"
HUB_PATH = re.compile(r"(?P<repo>[^/@]+/[^/@]+)(?:@(?P<revision>[^/@]+))?(?:/(?P<path>.*))?")
FORM = "hf://datasets/ORG/NAME[@REVISION][/PATH]"


def checked_repo_id(value: str, what: str) -> str:
    """`value` if it is a repo id `ORG/NAME` by huggingface_hub's own rules (`validate_repo_id`).

    Raises:
        ValueError: naming `what` (an option or variable) and `value`, and what is wrong with it.
    """
    try:
        validate_repo_id(value)
    except HFValidationError as error:
        reason = str(error).partition(": '")[0]  # its message ends by quoting the value, which ours names already
    else:
        reason = None if value.count("/") == 1 else "no '/' between the owner and the name"
    if reason:
        raise ValueError(f"{what} must be a repo id ORG/NAME, not {value!r} ({reason})")
    return value


def is_hub_path(value: str | os.PathLike) -> bool:
    return isinstance(value, str) and value.startswith(HUB_PREFIX)


def hub_or_local_path(text: str) -> str | Path:
    """argparse type of a run folder option: an `hf://datasets/...` path, checked and kept as text, or a local Path."""
    if not is_hub_path(text):
        return Path(text)
    try:
        parse_hub_path(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def parse_hub_path(value: str) -> tuple[str, str | None, str]:
    """`(repo_id, revision or None, path in the repo or "")`; ValueError naming `value` if it is not of the form."""
    match = HUB_PATH.fullmatch(value.removeprefix(DATASETS_PREFIX)) if value.startswith(DATASETS_PREFIX) else None
    path = (match["path"] or "").rstrip("/") if match else ""
    if match is None or any(part in ("", ".", "..") for part in path.split("/") if path):
        raise ValueError(f"{value}: not a Hub dataset path; expected {FORM}")
    try:
        checked_repo_id(match["repo"], "the repo")
    except ValueError as error:
        raise ValueError(f"{value}: not a Hub dataset path: {error}") from None
    return match["repo"], match["revision"], path


def join(folder: str, name: str) -> str:
    """A path in a repo: `name` in `folder` ("" the repo's root)."""
    return f"{folder}/{name}" if folder else name


def hub_path(repo_id: str, path: str = "") -> str:
    """`hf://datasets/ORG/NAME[/PATH]`, as `local_path` reads it."""
    return DATASETS_PREFIX + (join(repo_id, path) if path else repo_id)


def local_path(value: str | os.PathLike) -> Path:
    """A local path unchanged; an `hf://datasets/...` path as the cached snapshot folder it names (read-only).

    Raises:
        ValueError: `value` starts with `hf://` but is not of the form `hf://datasets/ORG/NAME[@REVISION][/PATH]`.
        FileNotFoundError: the repo (or PATH in it) does not exist, or is not cached while the Hub is out of reach.
    """
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
        return snapshot_download(repo_id, repo_type="dataset", revision=revision, allow_patterns=patterns)
    except RepositoryNotFoundError as error:
        raise FileNotFoundError(
            f"{value}: no dataset repo {repo_id} on {mask_url_secrets(constants.ENDPOINT)} (or it is private and the "
            "token in use cannot read it)"
        ) from error
    except RevisionNotFoundError as error:
        raise FileNotFoundError(f"{value}: the dataset repo {repo_id} has no revision {revision!r}") from error
    except LocalEntryNotFoundError as error:
        raise FileNotFoundError(f"{value}: not in the local Hugging Face cache and {why_unreachable(error)}") from error


def why_unreachable(error: LocalEntryNotFoundError) -> str:
    if constants.HF_HUB_OFFLINE or isinstance(error.__cause__, OfflineModeIsEnabled):
        return "offline mode is on (HF_HUB_OFFLINE); unset it to download the repo"
    return f"the Hub at {mask_url_secrets(constants.ENDPOINT)} cannot be reached"


__all__ = [
    "DATASETS_PREFIX",
    "HUB_PREFIX",
    "checked_repo_id",
    "hub_or_local_path",
    "hub_path",
    "is_hub_path",
    "join",
    "local_path",
    "parse_hub_path",
]
