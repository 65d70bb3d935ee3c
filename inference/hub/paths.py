"""`hf://datasets/ORG/NAME[@REVISION][/PATH]`, the spelling of a run shared on the Hub, as text: told apart from a
local path, parsed and checked, and the argparse type of a run folder option. Light: huggingface_hub is imported
only to read its endpoint or check a repo id, never when the command line's parser is built (`sources` downloads)."""

from __future__ import annotations

import argparse
import os
import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

from longform_eval.dataset_builder.repo_ids import checked_repo_id

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
    from huggingface_hub import constants

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


def missing_folder(path: str | os.PathLike) -> str:
    """The one line for a run folder that does not exist; for `ORG/NAME`, the spelling of a Hub repo's."""
    text = str(path)
    try:
        checked_repo_id(text, "a repo id")
    except ValueError:
        return f"{text}: no such run folder"
    return f"{text}: no such run folder (a dataset repo on the Hub is written {hub_path(text)})"


__all__ = [
    "DATASETS_PREFIX",
    "FORM",
    "HUB_PREFIX",
    "hub_or_local_path",
    "hub_path",
    "hub_path_of_page",
    "is_hub_path",
    "join",
    "missing_folder",
    "parse_hub_path",
    "safe_name",
]
