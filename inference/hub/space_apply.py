"""Give a published Space its settings on the Hub (`space_settings`): its private dataset repos, its variables and
the secrets the publisher hands over.

A variable publish set carries the description SET_BY; publish changes or removes only those, so a variable its
owner set by hand is kept (and named). Unchanged variables are not set again (a change restarts the Space). A
secret's value is sent once and never shown.
"""

from __future__ import annotations

from collections.abc import Mapping

from huggingface_hub import HfApi

from .space_settings import SET_BY, SpaceSettings


def prepare_private_datasets(api: HfApi, settings: SpaceSettings) -> None:
    """Create the Space's private dataset repos that are missing.

    Raises:
        ValueError: one of them exists and is public.
    """
    for repo_id, why in settings.private_datasets.items():
        api.create_repo(repo_id, repo_type="dataset", private=True, exist_ok=True)
        if not api.dataset_info(repo_id).private:
            raise ValueError(
                f"dataset {repo_id} exists and is public, but {why} and go to a private repo only: make it private "
                "on the Hub (or name another repo with --votes-repo) and publish again"
            )


def apply_settings(
    api: HfApi, repo_id: str, settings: SpaceSettings, secret_values: Mapping[str, str] | None = None
) -> list[str]:
    """Set the Space's variables and the secrets given in `secret_values`; one line per thing done or left to do."""
    where = f"space {repo_id}"
    current = api.get_space_variables(repo_id)
    changed, kept = [], []
    for key, value in settings.variables.items():
        found = current.get(key)
        if found is not None and found.value == value:
            continue
        if found is not None and found.description != SET_BY:
            kept.append(f"{key}={found.value}")
            continue
        api.add_space_variable(repo_id, key, value, description=SET_BY)
        changed.append(key)
    removed = [key for key, found in current.items() if key not in settings.variables and found.description == SET_BY]
    for key in removed:
        api.delete_space_variable(repo_id, key)
    lines = [f"{where}: variables " + (f"set: {', '.join(changed)}" if changed else "unchanged")]
    lines += [f"{where}: variables {SET_BY} earlier, removed: {', '.join(removed)}"] if removed else []
    lines += [f"{where}: variable {entry} kept: it was set by hand (delete it to let publish set it)" for entry in kept]
    return lines + secret_lines(api, repo_id, settings, secret_values or {})


def secret_lines(api: HfApi, repo_id: str, settings: SpaceSettings, values: Mapping[str, str]) -> list[str]:
    lines, present = [], None
    for key, purpose in settings.secrets.items():
        if values.get(key):
            api.add_space_secret(repo_id, key, values[key], description=purpose)
            lines.append(f"space {repo_id}: secret {key} set")
            continue
        present = present if present is not None else secret_names(api, repo_id)
        if key in present:
            lines.append(f"space {repo_id}: secret {key} already set")
        else:
            settings_page = f"{api.endpoint}/spaces/{repo_id}/settings"
            lines.append(f"space {repo_id}: set its secret {key} at {settings_page}: {purpose}")
    return lines


def secret_names(api: HfApi, repo_id: str) -> set[str]:
    """The Space's secrets (their names only: a value never comes back); none known before huggingface_hub had
    `get_space_secrets` (the pyproject accepts older versions)."""
    listing = getattr(api, "get_space_secrets", None)
    return set(listing(repo_id)) if listing is not None else set()
