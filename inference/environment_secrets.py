"""The secrets a command will use, registered when its settings are read, before any file is opened for writing.

The API keys and server URLs the backends read (their default variables, and the variables a run's options name in
their `*_env` options), URL credentials given as options, and the Hub token: each is registered with
`secret_values` (all its spellings), so that the first byte written or printed is already scrubbed of it, and a
display name holding one is refused (`runner.config.display_name_problem`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from longform_eval.common.guarded import SETTINGS, UnreadableFile, read_bytes

from .secret_values import register_secret, register_url_secrets

# The variables the built-in backends and the Hub client read secrets from, whatever a run's config names.
KNOWN_VARIABLES = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN")
ROLES = ("model", "judge")


def variables_named_in(options: Iterable[Mapping[str, Any] | None]) -> set[str]:
    """The environment variables backend options name (options ending in `_env`)."""
    return {
        value
        for found in options
        if isinstance(found, Mapping)
        for key, value in found.items()
        if str(key).endswith("_env") and isinstance(value, str)
    }


def options_of(config: Mapping[str, Any] | None) -> list[Mapping[str, Any] | None]:
    """The backend options of a run's config (config.yaml as a mapping): the model's and the judge's."""
    specs = [(config or {}).get(role) for role in ROLES]
    return [spec.get("options") if isinstance(spec, Mapping) else None for spec in specs]


def register_value(value: str) -> None:
    register_url_secrets(value) if "://" in value else register_secret(value)


def register_environment_secrets(options: Iterable[Mapping[str, Any] | None] = (), hub_token: bool = True) -> None:
    """Register the secrets this environment holds for the backends (and for the variables `options` name), the
    credentials of URLs given as options, the token in the Hub's token file, and (`hub_token`) the Hub token,
    wherever huggingface_hub reads it."""
    options = list(options)
    for name in sorted(set(KNOWN_VARIABLES) | variables_named_in(options)):
        register_value(os.environ.get(name) or "")
    for found in options:
        for value in (found or {}).values():
            if isinstance(value, str) and "://" in value:
                register_url_secrets(value)
    register_secret(hub_token_in_file())
    if hub_token:
        register_hub_token()


def hub_token_file() -> Path:
    """Where huggingface_hub reads its token file (its `constants.HF_TOKEN_PATH`, outside its staging mode), found
    without importing it, which takes the HTTP client with it: `--help` stays fast and is scrubbed of that token."""
    cache = os.getenv("XDG_CACHE_HOME", os.path.join(os.path.expanduser("~"), ".cache"))
    home = os.path.expandvars(os.path.expanduser(os.getenv("HF_HOME", os.path.join(cache, "huggingface"))))
    return Path(os.path.expandvars(os.path.expanduser(os.getenv("HF_TOKEN_PATH", os.path.join(home, "token")))))


def hub_token_in_file() -> str | None:
    """The token in huggingface_hub's token file, as it cleans it (None where there is none or it cannot be read)."""
    try:
        found = read_bytes(hub_token_file(), SETTINGS, decompress=False).decode("utf-8", errors="replace")
    except (OSError, UnreadableFile):  # none, a folder, or over a settings file's size
        return None
    return found.replace("\r", "").replace("\n", "").strip() or None


def register_hub_token() -> None:
    """The Hub token huggingface_hub sends, wherever it finds it; apart, as it imports huggingface_hub: the command
    line registers it once it has parsed a command, not for `--help` (the token file's is registered before it,
    `hub_token_in_file`)."""
    from huggingface_hub import get_token  # reads the token file or variable; no request

    register_secret(get_token())


def register_config_secrets(config: Mapping[str, Any] | None) -> None:
    """`register_environment_secrets` for a run's config (config.yaml as a mapping)."""
    register_environment_secrets(options_of(config))


__all__ = ["KNOWN_VARIABLES", "register_config_secrets", "register_environment_secrets", "register_hub_token"]
