"""Share a finished run folder as a Hub dataset repo (`longform-eval push-run`), read back with `hf://datasets/...`.

What goes up: the run's records, config.yaml, scores.json, report.md, comparisons.json and timings.json if present,
and its plots; never its lock, temporary files or anything else in the folder. The dataset card (README.md) says
what the run is. A repo may hold several runs (`--path-in-repo runs/NAME`): each run folder then carries its own
card and the root card lists them. Files are committed in one commit; huggingface_hub leaves out those the repo
already holds byte for byte, so pushing an unchanged run commits nothing.
"""

from __future__ import annotations

import fnmatch
import json
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

import yaml
from huggingface_hub import CommitOperationAdd, CommitOperationDelete, HfApi, hf_hub_download

from longform_eval.dataset_builder.hub import HubUnavailableError, offline_message, unreachable_errors

from ..report import load_scores
from ..runner import Run
from ..runner.folder import CONFIG_FILE, read_config
from ..runner.pending import pending_calls
from .run_card import CARD, RunInfo, is_our_card, repo_card, run_card

RUN_FILES = (
    CONFIG_FILE,
    "scores.json",
    "report.md",
    "comparisons.json",
    "timings.json",
    "generations*.jsonl",
    "judgements*.jsonl",
    "failures.jsonl",
    "*.png",
)
REPO_TYPE = "dataset"


@dataclass
class PushPlan:
    """A checked run folder and where it goes: `path_in_repo` "" is the repo's root."""

    folder: Path
    repo_id: str
    path_in_repo: str
    files: list[str]
    run: RunInfo

    def repo_path(self, name: str) -> str:
        return join(self.path_in_repo, name)


def join(folder: str, name: str) -> str:
    return f"{folder}/{name}" if folder else name


def run_file_names(folder: Path) -> list[str]:
    """The run's files to share, by name: lock files and temporaries (dot names) and anything else stay behind."""
    return sorted(
        entry.name
        for entry in folder.iterdir()
        if entry.is_file() and not entry.name.startswith(".") and is_run_file(entry.name)
    )


def is_run_file(name: str) -> bool:
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in RUN_FILES)


def checked_path_in_repo(value: str | None) -> str:
    """`runs/x` as given, without surrounding slashes; "" for none. ValueError for `..`, `.` or empty parts."""
    path = (value or "").strip("/")
    if path and any(part in ("", ".", "..") for part in path.split("/")):
        raise ValueError(f"--path-in-repo {value!r}: expected a folder path such as runs/NAME (no '.', '..' or '//')")
    return path


def plan_push(folder: Path, repo_id: str, path_in_repo: str | None = None) -> PushPlan:
    """Check that `folder` is a finished run folder and list what a push uploads.

    Raises:
        FileNotFoundError: no config.yaml, scores.json or report.md.
        ValueError: calls still pending, or scores.json says the run is incomplete.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise FileNotFoundError(f"{folder}: no such run folder")
    config = read_config(folder)
    scores = load_scores(folder)
    pending = pending_calls(Run.open(folder, read_only=True))
    if pending.count or not scores.get("complete", True):
        raise ValueError(
            f"{folder}: not finished ({pending.generations} generations and {pending.judge_calls} judge calls "
            "pending); finish it with the command that made it (`run`, `generate` or `judge`), then `score` and "
            "`report`, before sharing it"
        )
    if not (folder / "report.md").is_file():
        raise FileNotFoundError(f"{folder / 'report.md'}: missing; write it with `longform-eval report {folder}` first")
    path = checked_path_in_repo(path_in_repo)
    files = run_file_names(folder)
    return PushPlan(folder, repo_id, path, files, RunInfo(path, config, scores, files))


@dataclass
class PushResult:
    url: str
    commit: str
    changed: bool  # False: the repo already held this run byte for byte
    notes: list[str]


def push_run(plan: PushPlan, private: bool | None = None, api: HfApi | None = None) -> PushResult:
    """Create the dataset repo if needed and commit the run, its card and the root card in one commit."""
    message = offline_message(f"push {plan.folder} to {plan.repo_id}")
    if message:
        raise HubUnavailableError(message)
    api = api or HfApi()
    try:
        return commit_run(plan, private, api)
    except unreachable_errors() as error:
        unreachable = f"Cannot push {plan.folder} to {plan.repo_id}: the Hub is unreachable ({error})"
        raise HubUnavailableError(unreachable) from error


@dataclass
class RemoteRepo:
    """The repo as it stands before the push: its commit and its files."""

    api: HfApi
    repo_id: str
    commit: str | None
    files: set[str]

    def read(self, path: str) -> str:
        local = hf_hub_download(
            self.repo_id,
            path,
            repo_type=REPO_TYPE,
            revision=self.commit,
            endpoint=self.api.endpoint,
            token=self.api.token,
        )
        return Path(local).read_text(encoding="utf-8")


def commit_run(plan: PushPlan, private: bool | None, api: HfApi) -> PushResult:
    url = str(api.create_repo(plan.repo_id, repo_type=REPO_TYPE, private=private, exist_ok=True))
    before = api.repo_info(plan.repo_id, repo_type=REPO_TYPE).sha
    remote = RemoteRepo(
        api, plan.repo_id, before, set(api.list_repo_files(plan.repo_id, repo_type=REPO_TYPE, revision=before))
    )
    check_destination(plan, remote.files)
    operations, notes = commit_operations(plan, remote)
    info = api.create_commit(
        plan.repo_id,
        operations,
        repo_type=REPO_TYPE,
        commit_message=f"push-run {plan.folder.name} to /{plan.path_in_repo}: {plan.run.title}",
        parent_commit=before,
    )
    return PushResult(url, info.oid, info.oid != before, notes)


def check_destination(plan: PushPlan, remote: set[str]) -> None:
    """Refuse to write a run into a repo folder that holds files but is not a run folder pushed before."""
    top = {name for path in remote if (name := child_of(plan.path_in_repo, path)) is not None}
    foreign = sorted(top - {CONFIG_FILE, CARD, ".gitattributes"})
    if foreign and CONFIG_FILE not in top:
        where = f"/{plan.path_in_repo}" if plan.path_in_repo else "its root"
        raise ValueError(
            f"{plan.repo_id}: {where} holds {foreign[0]}"
            f"{f' and {len(foreign) - 1} more files' if len(foreign) > 1 else ''} but no run (no {CONFIG_FILE}); "
            "push-run writes only into a new or empty folder or a run pushed before: give another --path-in-repo"
        )


def child_of(folder: str, path: str) -> str | None:
    """The name of `path` if it is a file directly in `folder` ("" the root), else None."""
    parent = str(PurePosixPath(path).parent)
    return PurePosixPath(path).name if parent == (folder or ".") else None


def commit_operations(plan: PushPlan, remote: RemoteRepo) -> tuple[list[Any], list[str]]:
    """Adds for the run's files and cards, deletes for run files an earlier push left that the run no longer has."""
    operations: list[Any] = [CommitOperationAdd(plan.repo_path(name), plan.folder / name) for name in plan.files]
    for path in sorted(remote.files):
        name = child_of(plan.path_in_repo, path)
        if name and is_run_file(name) and name not in plan.files:
            operations.append(CommitOperationDelete(path))
    runs = other_runs(plan, remote) + [plan.run]
    cards = {join(plan.path_in_repo, CARD): run_card(plan.repo_id, plan.run)} if plan.path_in_repo else {}
    cards[CARD] = repo_card(plan.repo_id, runs)
    notes = []
    for path, text in cards.items():
        if path in remote.files and not is_our_card(remote.read(path)):
            notes.append(f"{path}: left as it is (a card push-run did not write); the run's files were pushed")
            continue
        operations.append(CommitOperationAdd(path, text.encode("utf-8")))
    return operations, notes


def other_runs(plan: PushPlan, remote: RemoteRepo) -> list[RunInfo]:
    """The runs the repo already holds in other folders (their config and scores read from the Hub)."""
    runs = []
    for folder in run_folders_in(remote.files):
        if folder != plan.path_in_repo:
            config = yaml.safe_load(remote.read(join(folder, CONFIG_FILE))) or {}
            scores = json.loads(remote.read(join(folder, "scores.json")))
            names = sorted(name for path in remote.files if (name := child_of(folder, path)) and is_run_file(name))
            runs.append(RunInfo(folder, config, scores, names))
    return runs


def run_folders_in(remote: set[str]) -> list[str]:
    """The repo's folders ("" the root) that hold a config.yaml and a scores.json: runs pushed before."""
    folders = {str(PurePosixPath(path).parent) for path in remote if PurePosixPath(path).name == CONFIG_FILE}
    folders = {"" if folder == "." else folder for folder in folders}
    return sorted(folder for folder in folders if join(folder, "scores.json") in remote)


__all__ = ["PushPlan", "PushResult", "plan_push", "push_run", "run_file_names"]
