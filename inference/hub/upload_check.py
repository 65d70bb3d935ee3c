"""No file goes up to the Hub holding a secret in use: `push-run` and `publish` refuse one that does, before any upload.

A run's files were scrubbed as they were written, but a file edited by hand, or written by an older version, may still
hold a key. So the secrets this environment holds are registered first: the API keys and server URLs the backends
read, by their default variable names and by the names a run's config.yaml gives (its `*_env` options), and the Hub
token. Then each file is searched for every spelling of each (`secret_values.find_secret`).
"""

from __future__ import annotations

from collections.abc import Iterable

from longform_eval.common.errors import LongformEvalError

from ..secret_values import find_secret


class SecretInUpload(LongformEvalError, ValueError):
    """A file about to be uploaded holds a secret in use; nothing was uploaded."""


def secret_line(data: bytes) -> int | None:
    """The number of the first line of `data` that holds a registered secret; None if no line does."""
    text = data.decode("utf-8", "replace")
    found = find_secret(text)
    return None if found is None else text.count("\n", 0, found) + 1


def refuse_secrets(files: Iterable[tuple[str, bytes]]) -> None:
    """Raises SecretInUpload for the first (name, data) whose data holds a registered secret, naming it and its line."""
    for name, data in files:
        line = secret_line(data)
        if line is not None:
            raise SecretInUpload(
                f"{name}:{line}: holds a secret in use (an API key, token or server credential set in this "
                "environment); nothing was uploaded: remove it from the file, then upload again"
            )


__all__ = ["SecretInUpload", "refuse_secrets"]
