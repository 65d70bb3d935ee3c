"""Files written whole: a temporary sibling, flushed to disk, then `os.replace`d over the target.

A crash or a full disk at any moment leaves either the old file or the new one, never a part of either.
Every file the package writes (except the append-only logs) goes through here; a text file is scrubbed of the secrets
in use first, and a character UTF-8 cannot encode (a lone surrogate) is written as its escape (`outgoing`).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

from .outgoing import encoded, outgoing_text
from .shown import harmless

YAML_SUFFIXES = (".yaml", ".yml")


@contextlib.contextmanager
def replacing(path: str | Path, durable: bool = True) -> Iterator[Path]:
    """Yields a temporary path beside `path`; when the block ends without error it replaces `path` (flushed to disk
    first unless not `durable`: a cache entry, which a crash leaves whole or missing and a reader recomputes)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(handle)
    temporary = Path(name)
    try:
        yield temporary
        if durable:
            with temporary.open("rb+") as written:
                os.fsync(written.fileno())
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except OSError as error:  # e.g. a full disk: say which file could not be written
        if error.filename is not None:
            raise
        raise OSError(error.errno, error.strerror or str(error), str(path)) from error
    finally:
        temporary.unlink(missing_ok=True)


def write_bytes_atomic(path: str | Path, data: bytes, durable: bool = True) -> Path:
    with replacing(path, durable) as temporary:
        temporary.write_bytes(data)
    return Path(path)


def write_text_atomic(path: str | Path, text: str, durable: bool = True) -> Path:
    """`text` written whole, the secrets in use masked and (but in YAML, which escapes controls itself and where
    an escape would change a value) its control characters shown as escapes (`shown.harmless`)."""
    text = outgoing_text(text)
    return write_bytes_atomic(path, encoded(text if str(path).endswith(YAML_SUFFIXES) else harmless(text)), durable)
