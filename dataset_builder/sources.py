"""Where a benchmark's source files come from: a flag, an environment variable, a local copy, upstream."""

from __future__ import annotations

import io
import os
import shutil
import tempfile
import urllib.error
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path

from .errors import SourceUnavailableError

SOURCE_ENV = "LONGFORM_EVAL_SOURCE"
CACHE_ENV = "LONGFORM_EVAL_CACHE"


@dataclass(frozen=True)
class Upstream:
    """A public GitHub repository pinned at one commit."""

    repo: str
    commit: str

    @property
    def url(self) -> str:
        return f"https://github.com/{self.repo}"

    @property
    def archive_url(self) -> str:
        return f"https://codeload.github.com/{self.repo}/zip/{self.commit}"


def checkout_root() -> Path:
    """The repository root when the package runs from a checkout (editable install)."""
    return Path(__file__).resolve().parent.parent


def local_candidates(name: str) -> list[Path]:
    """Folders searched, in order, when no --source is given."""
    candidates = []
    if os.environ.get(SOURCE_ENV):
        candidates.append(Path(os.environ[SOURCE_ENV]) / name)
    candidates.append(checkout_root().parent / "shared" / "data" / name)
    candidates.append(Path.cwd().parent / "shared" / "data" / name)
    return candidates


def resolve_source(name: str, source: str | Path | None, upstream: Upstream) -> Path:
    """Return the folder holding `name`'s source files.

    Order: the explicit `source`; `$LONGFORM_EVAL_SOURCE/<name>`; `../shared/data/<name>` beside the
    checkout; a download of the pinned upstream commit into the cache.
    """
    if source is not None:
        path = Path(source)
        if not path.is_dir():
            raise FileNotFoundError(f"--source {path}: no such folder")
        return path
    for candidate in local_candidates(name):
        if candidate.is_dir():
            return candidate
    return download_upstream(name, upstream)


def cache_dir() -> Path:
    default = Path.home() / ".cache" / "longform_eval" / "sources"
    return Path(os.environ.get(CACHE_ENV, default))


def download_upstream(name: str, upstream: Upstream) -> Path:
    """Download and unpack the pinned upstream archive once; later calls reuse it."""
    target = cache_dir() / f"{name}-{upstream.commit[:12]}"
    if target.is_dir():
        return target
    try:
        with urllib.request.urlopen(upstream.archive_url, timeout=60) as response:
            payload = response.read()
    except (urllib.error.URLError, TimeoutError, OSError) as error:
        raise SourceUnavailableError(
            f"No local copy of {name} was found (looked in: "
            f"{', '.join(str(p) for p in local_candidates(name))}) and downloading {upstream.archive_url} "
            f"failed ({error}). Pass the folder with --source DIR (or set {SOURCE_ENV})."
        ) from error
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{name}-"))
    try:
        with zipfile.ZipFile(io.BytesIO(payload)) as archive:
            archive.extractall(staging)
        (top,) = list(staging.iterdir())
        top.rename(target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target
