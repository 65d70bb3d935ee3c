"""Where a benchmark's source files come from: a flag, an environment variable, a local copy, upstream."""

from __future__ import annotations

import io
import os
import urllib.error
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path

from longform_eval.common.errors import SourceUnavailableError
from longform_eval.common.owned import listed_files, remove_listed, safe_names, write_listing
from longform_eval.common.staging import remove_dead_staging, staging_folder

SOURCE_ENV = "LONGFORM_EVAL_SOURCE"
CACHE_ENV = "LONGFORM_EVAL_CACHE"
DOWNLOAD_MARKER = ".longform-eval-download.json"


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


def local_candidates(name: str) -> list[Path]:
    """Folders searched when no --source is given: `$LONGFORM_EVAL_SOURCE/<name>`, if the variable is set."""
    return [Path(os.environ[SOURCE_ENV]) / name] if os.environ.get(SOURCE_ENV) else []


def resolve_source(name: str, source: str | Path | None, upstream: Upstream) -> Path:
    """Return the folder holding `name`'s source files.

    Order: the explicit `source`; `$LONGFORM_EVAL_SOURCE/<name>`; a download of the pinned upstream commit into
    the cache.
    """
    if source is not None:
        path = Path(source)
        if not path.is_dir():
            raise FileNotFoundError(f"--source {source}: no such folder")  # as given: a Path folds a URL's `//`
        return path
    for candidate in local_candidates(name):
        if candidate.is_dir():
            return candidate
    return download_upstream(name, upstream)


def looked_in(name: str) -> str:
    """The local folders searched for `name`, as the start of a message (empty when none was searched)."""
    candidates = local_candidates(name)
    return f"No local copy of {name} in {', '.join(map(str, candidates))}; " if candidates else ""


def cache_dir() -> Path:
    default = Path.home() / ".cache" / "longform_eval" / "sources"
    return Path(os.environ.get(CACHE_ENV, default))


def download_upstream(name: str, upstream: Upstream) -> Path:
    """Download and unpack the pinned upstream archive once; later calls reuse it.

    The archive is unpacked into a staging folder beside the cached copy (its marker lists the archive's files),
    then renamed into place; staging folders of killed downloads are removed by the next download (see `staging`).
    """
    target = cache_dir() / f"{name}-{upstream.commit[:12]}"
    if target.is_dir():
        return target
    if target.exists() or target.is_symlink():
        raise SourceUnavailableError(f"{target}: expected the cached copy of {name} there, found something else")
    try:
        with urllib.request.urlopen(upstream.archive_url, timeout=60) as response:
            payload = response.read()
    except (urllib.error.URLError, TimeoutError, OSError) as error:
        raise SourceUnavailableError(
            f"{looked_in(name)}downloading {upstream.archive_url} failed ({error}). "
            f"Set {SOURCE_ENV}=DIR, DIR holding a folder {name}/ of its upstream files (`build`, `run` and `generate` "
            "also take --source DIR)."
        ) from error
    target.parent.mkdir(parents=True, exist_ok=True)
    remove_dead_staging(target, DOWNLOAD_MARKER)
    staging = staging_folder(target)
    try:
        unpack(payload, staging, upstream.archive_url)
        (top,) = [entry for entry in staging.iterdir() if entry.name != DOWNLOAD_MARKER]
        top.rename(target)
    except (zipfile.BadZipFile, ValueError) as error:
        raise SourceUnavailableError(f"{upstream.archive_url}: not the expected archive ({error})") from error
    finally:
        remove_listed(staging, listed_files(staging, DOWNLOAD_MARKER) or [])
    return target


def unpack(payload: bytes, folder: Path, url: str) -> None:
    """Extract the zip archive `payload` into `folder`, listing its files and folders in a marker first."""
    with zipfile.ZipFile(io.BytesIO(payload)) as archive:
        files = safe_names([name.removesuffix("/") for name in archive.namelist()])
        if files is None:
            raise ValueError("it holds a path outside its folder")
        write_listing(folder, DOWNLOAD_MARKER, {"archive": url}, files)
        archive.extractall(folder)
