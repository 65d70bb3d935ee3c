"""`hf://datasets/ORG/NAME[@REVISION][/PATH]` as a folder: a run shared on the Hub, read where a local folder is read.

The repo is downloaded with `huggingface_hub.snapshot_download` into the Hugging Face cache, once: a later call
finds the files there (with offline mode on, or the Hub unreachable, the cached snapshot is used as it is). The
folder returned is the cache's: callers read it and never write there. Whatever the server answers, nothing is
written outside the cache (`snapshot.fenced_snapshot`), and an answer no Hub sends is one line naming the repo.
"""

from __future__ import annotations

import argparse
import os
import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

import httpx2
from huggingface_hub import constants
from huggingface_hub.errors import (
    LocalEntryNotFoundError,
    OfflineModeIsEnabled,
    RepositoryNotFoundError,
    RevisionNotFoundError,
)

from longform_eval.dataset_builder.hub import checked_repo_id

from ..url_secrets import mask_url_secrets
from .client import HubAnswerError
from .snapshot import fenced_snapshot

HUB_PREFIX = "hf://"
DATASETS_PREFIX = f"{HUB_PREFIX}datasets/"
HUB_PATH = re.compile(r"(?P<repo>[^/@]+/[^/@]+)(?:@(?P<revision>[^/@]+))?(?:/(?P<path>.*))?")
FORM = "hf://datasets/ORG/NAME[@REVISION][/PATH]"
PAGE_FORM = "https://huggingface.co/datasets/ORG/NAME[/tree/REVISION/PATH]"
HUB_HOSTS = ("huggingface.co", "www.huggingface.co", "hf.co")
DATASET_PAGE = (
    r"(?:https?://)?{host}/datasets/(?P<repo>[^/?#@]+/[^/?#@]+)(?:/tree/(?P<revision>[^/?#]+)(?P<path>/[^?#]*)?)?/?"
)
DEFAULT_BRANCH = "main"


def is_hub_path(value: str | os.PathLike) -> bool:
    return isinstance(value, str) and value.startswith(HUB_PREFIX)


def hub_or_local_path(text: str) -> str | Path:
    """argparse type of a run folder option: an `hf://datasets/...` path, checked and kept as text (a dataset's page
    URL, `https://huggingface.co/datasets/ORG/NAME[/tree/REVISION/PATH]`, is taken as that path), or a local Path.
    Any other URL is refused in one line, before it becomes a Path (which would fold its `//`)."""
    if not is_hub_path(text):
        page = None if Path(text).exists() else hub_path_of_page(text)
        if page is None and "://" in text:
            raise argparse.ArgumentTypeError(
                f"expected a run folder, {FORM} or {PAGE_FORM}; got another URL (not repeated: it may hold a secret)"
            )
        if page is None:
            return Path(text)
        text = page
    try:
        parse_hub_path(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def hub_path_of_page(url: str) -> str | None:
    """`hf://datasets/ORG/NAME[@REVISION][/PATH]` for the URL of a dataset's page on the Hub (or on the endpoint in
    use), its tree at a revision or a folder of it; None for anything else."""
    endpoint = urlsplit(constants.ENDPOINT).netloc
    hosts = [*HUB_HOSTS, *([endpoint] if endpoint and "@" not in endpoint else [])]
    for host in hosts:
        match = re.fullmatch(DATASET_PAGE.format(host=re.escape(host)), url)
        if match:
            revision = unquote(match["revision"] or DEFAULT_BRANCH)
            path = unquote(match["path"] or "").strip("/")
            return (
                DATASETS_PREFIX
                + match["repo"]
                + ("" if revision == DEFAULT_BRANCH else f"@{revision}")
                + (f"/{path}" if path else "")
            )
    return None


def missing_folder(path: str | os.PathLike) -> str:
    """The one line for a run folder that does not exist; for `ORG/NAME`, the spelling of a Hub repo's."""
    text = str(path)
    try:
        checked_repo_id(text, "a repo id")
    except ValueError:
        return f"{text}: no such run folder"
    return f"{text}: no such run folder (a dataset repo on the Hub is written {hub_path(text)})"


def parse_hub_path(value: str) -> tuple[str, str | None, str]:
    """`(repo_id, revision or None, path in the repo or "")`; ValueError naming `value` if it is not of the form."""
    match = HUB_PATH.fullmatch(value.removeprefix(DATASETS_PREFIX)) if value.startswith(DATASETS_PREFIX) else None
    path = (match["path"] or "").rstrip("/") if match else ""
    revision = (match["revision"] or "") if match else ""
    if match is None or any(part in ("", ".", "..") for part in path.split("/") if path) or not safe_name(revision):
        raise ValueError(f"{value}: not a Hub dataset path; expected {FORM}")
    try:
        checked_repo_id(match["repo"], "the repo")
    except ValueError as error:
        raise ValueError(f"{value}: not a Hub dataset path: {error}") from None
    return match["repo"], match["revision"], path


def safe_name(revision: str) -> bool:
    """Whether a revision (or "" for none) is no path out of the cache's `refs/` folder."""
    return revision not in (".", "..") and "\\" not in revision


def join(folder: str, name: str) -> str:
    """A path in a repo: `name` in `folder` ("" the repo's root)."""
    return f"{folder}/{name}" if folder else name


def hub_path(repo_id: str, path: str = "", revision: str | None = None) -> str:
    """`hf://datasets/ORG/NAME[@REVISION][/PATH]`, as `local_path` reads it."""
    repo = f"{repo_id}@{revision}" if revision else repo_id
    return DATASETS_PREFIX + (join(repo, path) if path else repo)


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
