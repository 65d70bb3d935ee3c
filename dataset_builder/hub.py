"""Publish a built dataset folder to the Hugging Face Hub."""

from __future__ import annotations

import contextlib
import importlib
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml
from huggingface_hub.errors import HfHubHTTPError, OfflineModeIsEnabled

from longform_eval.common.errors import LongformEvalError
from longform_eval.common.guarded import DATA_FILE, DOCUMENT, PAGE, read_bytes, read_upload
from longform_eval.common.owned import safe_names

from .repo_ids import card_repo_id, checked_repo_id

if TYPE_CHECKING:  # HfApi (its HTTP stack) is imported by the functions that talk to the Hub
    from huggingface_hub import HfApi

OFFLINE_VARIABLES = ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE")


class HubUnavailableError(LongformEvalError, RuntimeError):
    """The Hub cannot be reached (offline mode or no network)."""


def card_metadata(folder: Path) -> dict[str, Any]:
    readme = folder / "README.md"
    if not readme.is_file():
        raise FileNotFoundError(f"{readme}: missing; build the folder with `longform-eval build` first")
    text = read_bytes(readme, DOCUMENT).decode("utf-8")  # a regular file of at most 64 MiB
    if not text.startswith("---\n"):
        raise ValueError(f"{readme}: no YAML header")
    return yaml.safe_load(text.split("---\n", 2)[1]) or {}


def upload_plan(folder: str | Path) -> list[str]:
    """The files a push uploads, relative to the folder: the card and every data file its configs name.

    Raises if the card names a data file that is missing, so a half-built folder is never pushed.
    """
    folder = Path(folder)
    files = ["README.md"]
    for config in card_metadata(folder).get("configs", []):
        for data_file in config.get("data_files", []):
            if safe_names([data_file["path"]]) is None:
                raise ValueError(
                    f"{folder / 'README.md'}: config {config['config_name']!r} names {data_file['path']!r}, "
                    "not a path inside the folder"
                )
            if not (folder / data_file["path"]).is_file():
                raise FileNotFoundError(
                    f"{folder / 'README.md'}: config {config['config_name']!r} names {data_file['path']}, "
                    "which is missing"
                )
            files.append(data_file["path"])
    return sorted(set(files))


def upload_files(folder: str | Path) -> dict[str, bytes]:
    """path -> bytes of the files a push uploads (`upload_plan`), each read once and uploaded as read: a regular file
    (no link followed) within the ceiling of its kind; an UnreadableFile naming the first that is not."""
    folder = Path(folder)
    return {
        path: read_upload(folder / path, PAGE if path == "README.md" else DATA_FILE) for path in upload_plan(folder)
    }


def is_offline() -> bool:
    return bool(offline_variables())


def offline_variables() -> list[str]:
    """The offline-mode variables that are on."""
    return [name for name in OFFLINE_VARIABLES if os.environ.get(name, "").upper() in ("1", "ON", "YES", "TRUE")]


def offline_message(action: str) -> str | None:
    """One line saying that `action` (e.g. "push x to y") cannot run because offline mode is on; None when off."""
    names = offline_variables()
    if not names:
        return None
    return f"Cannot {action}: offline mode is on ({' / '.join(names)}). Unset it and make sure the Hub is reachable."


def unreachable_errors() -> tuple[type[BaseException], ...]:
    """The errors huggingface_hub's HTTP client raises when the Hub cannot be reached (no answer, not an HTTP error).

    Its transport errors (httpx2's in huggingface_hub 1.x/2.x) are not OSErrors, so they are named here.
    """
    errors: list[type[BaseException]] = [OfflineModeIsEnabled, ConnectionError, TimeoutError]
    for module in ("httpx2", "httpx"):
        with contextlib.suppress(ImportError, AttributeError):
            errors.append(importlib.import_module(module).TransportError)
    return tuple(errors)


def push_to_hub(
    folder: str | Path,
    repo_id: str,
    revision: str | None = None,
    commit_message: str | None = None,
    private: bool | None = None,
    token: str | None = None,
    api: HfApi | None = None,
):
    """Create the dataset repo if needed and upload card + data in one commit.

    The card is uploaded in the same commit as the data it describes and is never edited afterwards;
    to change it, rebuild the folder and push a new commit.
    """
    folder = Path(folder)
    files = upload_files(folder)
    message = offline_message(f"push {folder} to {repo_id}")
    if message:
        raise HubUnavailableError(message)
    from huggingface_hub import CommitOperationAdd, HfApi

    api = api or HfApi(token=token)
    try:
        api.create_repo(repo_id, repo_type="dataset", private=private, exist_ok=True)
        if revision:
            api.create_branch(repo_id, repo_type="dataset", branch=revision, exist_ok=True)
        return api.create_commit(
            repo_id=repo_id,
            repo_type="dataset",
            operations=[CommitOperationAdd(path, data) for path, data in files.items()],
            revision=revision,
            commit_message=commit_message or f"Upload {folder.name} built by longform-eval",
        )
    except HfHubHTTPError:
        raise  # the Hub answered (401, 403, ...): its own message says why
    except (*unreachable_errors(), OSError) as error:
        if isinstance(error, FileNotFoundError):
            raise
        raise HubUnavailableError(f"Cannot push {folder} to {repo_id}: the Hub is unreachable ({error})") from error


__all__ = [
    "OFFLINE_VARIABLES",
    "HubUnavailableError",
    "card_metadata",
    "card_repo_id",
    "checked_repo_id",
    "is_offline",
    "offline_message",
    "offline_variables",
    "push_to_hub",
    "unreachable_errors",
    "upload_files",
    "upload_plan",
]
