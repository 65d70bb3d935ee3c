"""A dataset repo as `push-run` finds it before a push: its commit, its files, and the runs pushed there before.

Remote config.yaml and scores.json files are read with the checks a local run folder gets (`read_config`,
`load_scores`), from the Hugging Face cache; a damaged one is one line naming its `hf://datasets/...` path.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, TypeVar

from huggingface_hub import HfApi, hf_hub_download
from huggingface_hub.hf_api import RepoFile

from longform_eval.common.guarded import DOCUMENT, read_bytes

from ..benchmarks.run_scores import RunScores
from ..report.markdown import load_scores
from ..runner.folder import CONFIG_FILE, RunFolderError, read_config
from ..runner.schema import SchemaMismatch
from ..url_secrets import mask_url_secrets
from .client import checked_commit, guard_hub_client
from .run_files import SCORES, TIMINGS, is_run_file
from .sources import hub_path, join

REPO_TYPE = "dataset"
Read = TypeVar("Read")


def child_of(folder: str, path: str) -> str | None:
    """The name of `path` if it is a file directly in `folder` ("" the root), else None."""
    parent = str(PurePosixPath(path).parent)
    return PurePosixPath(path).name if parent == (folder or ".") else None


def names_in(folder: str, paths: Iterable[str]) -> set[str]:
    """The names of the files directly in `folder` among the repo paths `paths`."""
    return {name for path in paths if (name := child_of(folder, path)) is not None}


@dataclass
class RemoteRepo:
    """The repo at the commit the push starts from, with its files (path -> the Hub's blob id, size, LFS info)."""

    api: HfApi
    repo_id: str
    commit: str | None
    files: dict[str, RepoFile]
    texts: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.commit is not None:  # the server's word, which hf_hub_download would make a path of (client.py)
            checked_commit(self.commit, f"{mask_url_secrets(self.api.endpoint)} for the dataset repo {self.repo_id}")

    def download(self, path: str) -> Path:
        """The file in the Hugging Face cache (read-only: never written here)."""
        guard_hub_client()
        local = hf_hub_download(
            self.repo_id,
            path,
            repo_type=REPO_TYPE,
            revision=self.commit,
            endpoint=self.api.endpoint,
            token=self.api.token,
        )
        return Path(local)

    def read(self, path: str) -> str:
        """The file's text; bytes that are not UTF-8 read as U+FFFD (such a card or table is then not ours)."""
        if path not in self.texts:
            self.texts[path] = read_bytes(self.download(path), DOCUMENT).decode("utf-8", errors="replace")
        return self.texts[path]

    def checked(self, reader: Callable[[Path], Read], folder: str, *names: str) -> Read:
        """`reader` (a run folder reader) applied to the files `names` of the repo's `folder`, downloaded; its errors
        name the files by their `hf://datasets/...` path, not the cache's.

        Raises:
            SchemaMismatch: a config.yaml of another run-folder schema.
            RunFolderError: a file the reader refuses.
        """
        local = self.download(join(folder, names[0])).parent
        for name in names[1:]:
            self.download(join(folder, name))
        try:
            return reader(local)
        except (ValueError, OSError) as error:
            message = str(error).replace(str(local), hub_path(self.repo_id, folder))
            raise (SchemaMismatch if isinstance(error, SchemaMismatch) else RunFolderError)(message) from None

    def config(self, folder: str) -> dict[str, Any]:
        return self.checked(read_config, folder, CONFIG_FILE)

    def run(self, folder: str) -> tuple[dict[str, Any], RunScores]:
        """The config.yaml and scores.json of the run in `folder`."""
        return self.checked(lambda local: (read_config(local), load_scores(local)), folder, CONFIG_FILE, SCORES)

    def text_of(self, folder: str, name: str) -> str | None:
        """The text of the file `name` of `folder`, None when the repo has no such file."""
        path = join(folder, name)
        return self.read(path) if path in self.files else None

    def run_folders(self) -> list[str]:
        """The repo's folders ("" the root) that hold a config.yaml and a scores.json: runs pushed before."""
        parents = {str(PurePosixPath(path).parent) for path in self.files if PurePosixPath(path).name == CONFIG_FILE}
        folders = {"" if folder == "." else folder for folder in parents}
        return sorted(folder for folder in folders if join(folder, SCORES) in self.files)

    def run_files(self, folder: str) -> list[str]:
        """The names of the run files directly in `folder`."""
        return sorted(name for name in names_in(folder, self.files) if is_run_file(name))


__all__ = ["REPO_TYPE", "SCORES", "TIMINGS", "RemoteRepo", "child_of", "is_run_file", "names_in"]
