"""Share a finished run folder as a Hub dataset repo (`longform-eval push-run`), read back with `hf://datasets/...`.

What goes up: the run's records, config.yaml, scores.json, report.md, comparisons.json and timings.json if present,
and the plots `report` drew (`.plots.json` records each one's SHA-256); never its lock, temporary files or anything
else in the folder. Every file is read once, through the guarded reader, and those bytes are what is uploaded: a
regular file within the ceiling of its kind, no link followed. A run folder holding a link, a run file past its
ceiling or a PNG that `report` did not draw is refused with one line naming it, before any Hub call. The dataset
card (README.md) says what the run is and lists its files. A repo may hold several runs (`--path-in-repo runs/NAME`):
each run folder then carries its own card and the root card lists them.

A push writes into a new or empty folder of the repo, or over the same run pushed before (its config.yaml the same,
compared as a resumed run's is: `RunConfig.changed_fields`). It deletes only the files the earlier push listed in its
card (when the card is still ours) and the run no longer has: never a file someone uploaded by hand. Files the repo
already holds byte for byte are left out, as `publish` does (`remote.is_same`): pushing an unchanged run makes no
commit. A file that holds a secret in use (a key edited into a log by hand) is refused before any Hub call
(`upload_check`), and a Hub error is one line, scrubbed (`client.hub_errors`).
"""

from __future__ import annotations

import fnmatch
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from huggingface_hub import CommitOperationAdd, CommitOperationDelete, HfApi
from huggingface_hub.errors import HFValidationError
from huggingface_hub.utils import validate_repo_id

from longform_eval.common.errors import LongformEvalError
from longform_eval.common.guarded import DOCUMENT, LOG, PAGE, PLOT, ROWS, SETTINGS, Kind, read_upload
from longform_eval.common.plurals import counted
from longform_eval.dataset_builder.hub import HubUnavailableError, offline_message, unreachable_errors

from ..environment_secrets import register_config_secrets
from ..report.markdown import load_scores
from ..report.sections.drawn import drawn_plots
from ..runner import Run
from ..runner.config import RunConfig
from ..runner.folder import CONFIG_FILE, read_config
from ..runner.pending import pending_calls
from ..runner.rows_file import ROWS_FILE
from ..runner.schema import SchemaMismatch
from ..secret_values import scrubbed_line
from .client import guard_hub_client, hub_errors
from .remote import is_same, remote_files
from .results_table import RESULTS_FILE, is_our_table, results_table, run_date
from .run_card import CARD, RunInfo, is_our_card, listed_files, repo_card, run_card
from .run_remote import REPO_TYPE, TIMINGS, RemoteRepo, child_of, is_run_file, names_in
from .sources import checked_repo_id, join
from .upload_check import refuse_secrets

# The ceiling each run file is read under, by name (first match); every name `is_run_file` accepts has one.
UPLOAD_KINDS: tuple[tuple[str, Kind], ...] = (
    (CONFIG_FILE, SETTINGS),
    ("*.json", DOCUMENT),
    ("report.md", PAGE),
    ("*.jsonl", LOG),
    (ROWS_FILE, ROWS),
    ("*.png", PLOT),
)


class UploadRefused(LongformEvalError, ValueError):
    """The run folder holds something push-run will not upload or read past (a link, a file it did not write)."""


@dataclass
class PushPlan:
    """A checked run folder and where it goes: `path_in_repo` "" is the repo's root. `data`: each file's bytes as
    read once through the guarded reader, which are what is uploaded."""

    folder: Path
    repo_id: str
    path_in_repo: str
    data: dict[str, bytes]
    run: RunInfo

    @property
    def files(self) -> list[str]:
        return sorted(self.data)

    def repo_path(self, name: str) -> str:
        return join(self.path_in_repo, name)

    @property
    def where(self) -> str:
        return f"/{self.path_in_repo}" if self.path_in_repo else "its root"


def upload_kind(name: str) -> Kind:
    return next(kind for pattern, kind in UPLOAD_KINDS if fnmatch.fnmatchcase(name, pattern))


def run_file_names(folder: Path) -> list[str]:
    """The run's files to share, by name: regular files named as a run's files, not dot names (locks, temporaries,
    caches). A link or a PNG that `report` did not draw is an UploadRefused naming it."""
    drawn = drawn_plots(folder)
    names = []
    for entry in sorted(folder.iterdir()):
        if stat.S_ISLNK(entry.lstat().st_mode):
            raise UploadRefused(
                f"{entry}: is a symbolic link; push-run uploads only files the run wrote and follows no link: "
                "replace it with the file itself or move it out of the run folder"
            )
        if entry.name.startswith(".") or not is_run_file(entry.name):
            continue
        if entry.name.endswith(".png") and entry.name not in drawn:
            raise UploadRefused(
                f"{entry}: a PNG that `longform-eval report` did not draw (or one changed since it drew it); push-run "
                "uploads only the run's own plots: move it out of the run folder, or run `report` again"
            )
        names.append(entry.name)
    return names


def read_run_files(folder: Path, names: list[str]) -> dict[str, bytes]:
    """name -> bytes of the run's files `names` (`run_file_names`), each read once: a regular file, no link
    followed, within the ceiling of its kind (`UPLOAD_KINDS`); an UnreadableFile naming the first that is not."""
    return {name: read_upload(folder / name, upload_kind(name)) for name in names}


def checked_path_in_repo(value: str | None) -> str:
    """`runs/x` as given, without surrounding slashes; "" for none. A ValueError for a part that is not named as a
    repo name may be (`validate_repo_id`: letters, digits, '-', '_' and '.'; no '..', '--', line break or control)."""
    path = (value or "").strip("/")
    for part in path.split("/") if path else ():
        try:
            validate_repo_id(part)
        except HFValidationError:
            raise ValueError(
                f"--path-in-repo {value!r}: expected a folder path such as runs/NAME, each part named as a repo name "
                f"is (letters, digits, '-', '_', '.'; no '..' or '--'), not {part!r}"
            ) from None
    return path


def plan_push(folder: Path, repo_id: str, path_in_repo: str | None = None) -> PushPlan:
    """Check that `folder` is a finished run folder and list what a push uploads.

    Raises:
        FileNotFoundError: no config.yaml, scores.json or report.md.
        ValueError: not a repo id, calls still pending, or scores.json says the run is incomplete.
        SecretInUpload: a file of the run holds a secret this environment holds (an API key, the Hub token).
        UploadRefused: the folder holds a link, or a PNG that `report` did not draw.
        UnreadableFile: a run file is not a regular file or is past the ceiling of its kind.
    """
    checked_repo_id(repo_id, "--repo")
    folder = Path(folder)
    if not folder.is_dir():
        raise FileNotFoundError(f"{folder}: no such run folder")
    names = run_file_names(folder)  # first: no link is read through, not even to check the run
    config = read_config(folder)
    scores = load_scores(folder)
    pending = pending_calls(Run.open(folder, read_only=True))
    if pending.count or not scores.complete:
        raise ValueError(
            f"{folder}: not finished ({pending.generations} generations and {pending.judge_calls} judge calls "
            "pending); finish it with the command that made it (`run`, `generate` or `judge`), then `score` and "
            "`report`, before sharing it"
        )
    if not (folder / "report.md").is_file():
        raise FileNotFoundError(f"{folder / 'report.md'}: missing; write it with `longform-eval report {folder}` first")
    path = checked_path_in_repo(path_in_repo)
    data = read_run_files(folder, names)
    register_config_secrets(config)
    refuse_secrets((str(folder / name), data[name]) for name in sorted(data))
    timings = data[TIMINGS].decode("utf-8", errors="replace") if TIMINGS in data else None
    return PushPlan(folder, repo_id, path, data, RunInfo(path, config, scores, sorted(data), run_date(timings)))


@dataclass
class PushResult:
    url: str
    commit: str
    changed: bool  # False: the repo already held this run byte for byte, and no commit was made
    notes: list[str]


def push_run(plan: PushPlan, private: bool | None = None, api: HfApi | None = None) -> PushResult:
    """Create the dataset repo if needed and commit what changed of the run, its card and the root card, in one
    commit (none when nothing changed)."""
    message = offline_message(f"push {plan.folder} to {plan.repo_id}")
    if message:
        raise HubUnavailableError(message)
    guard_hub_client()  # a timeout on every call, the answers checked, the token registered (client.py)
    api = api or HfApi()
    try:
        with hub_errors(f"push {plan.folder} to {plan.repo_id}"):
            return commit_run(plan, private, api)
    except unreachable_errors() as error:
        unreachable = f"Cannot push {plan.folder} to {plan.repo_id}: the Hub is unreachable ({error})"
        raise HubUnavailableError(scrubbed_line(unreachable)) from None


def commit_run(plan: PushPlan, private: bool | None, api: HfApi) -> PushResult:
    url = str(api.create_repo(plan.repo_id, repo_type=REPO_TYPE, private=private, exist_ok=True))
    before = api.repo_info(plan.repo_id, repo_type=REPO_TYPE).sha
    remote = RemoteRepo(api, plan.repo_id, before, remote_files(api, plan.repo_id, REPO_TYPE, before))
    check_destination(plan, remote)
    operations, notes = commit_operations(plan, remote)
    if not operations:
        return PushResult(url, before or "", False, notes)
    info = api.create_commit(
        plan.repo_id,
        operations,
        repo_type=REPO_TYPE,
        commit_message=f"push-run {plan.folder.name} to /{plan.path_in_repo}: {plan.run.title}",
        parent_commit=before,
    )
    return PushResult(url, info.oid, True, notes)


def check_destination(plan: PushPlan, remote: RemoteRepo) -> None:
    """Refuse to write a run into a repo folder that holds another run, or files but no run."""
    top = names_in(plan.path_in_repo, remote.files)
    if CONFIG_FILE in top:
        check_same_run(plan, remote)
        return
    foreign = sorted(top - {CARD, ".gitattributes", RESULTS_FILE})
    if foreign:
        more = f" and {counted(len(foreign) - 1, 'more file')}" if len(foreign) > 1 else ""
        raise ValueError(
            f"{plan.repo_id}: {plan.where} holds {foreign[0]}{more} but no run (no {CONFIG_FILE}); "
            "push-run writes only into a new or empty folder or a run pushed before: give another --path-in-repo"
        )


def check_same_run(plan: PushPlan, remote: RemoteRepo) -> None:
    """Refuse unless the destination's config.yaml is this run's, compared as `Run.reconcile` compares them."""
    try:
        changed = RunConfig.model_validate(plan.run.config).changed_fields(remote.config(plan.path_in_repo))
    except SchemaMismatch:
        changed = ["schema_version"]
    if changed:
        raise ValueError(
            f"{plan.repo_id}: {plan.where} holds another run (its {CONFIG_FILE} differs in {', '.join(changed)}); "
            "push-run replaces only the same run pushed before: give another --path-in-repo"
        )


def commit_operations(plan: PushPlan, remote: RemoteRepo) -> tuple[list[Any], list[str]]:
    """Adds for the run's files, cards and results table that the repo does not hold byte for byte, deletes for
    files the earlier push listed that the run no longer has; and notes for files left alone."""
    operations: list[Any] = []
    for name in plan.files:
        if not is_same(remote.files.get(plan.repo_path(name)), plan.data[name]):
            operations.append(CommitOperationAdd(plan.repo_path(name), plan.data[name]))
    operations += [CommitOperationDelete(path) for path in stale_files(plan, remote)]
    runs = other_runs(plan, remote) + [plan.run]
    table = RESULTS_FILE not in remote.files or is_our_table(remote.read(RESULTS_FILE))
    ours = {RESULTS_FILE: results_table(runs)} if table else {}
    if plan.path_in_repo:
        ours[plan.repo_path(CARD)] = run_card(plan.repo_id, plan.run).encode("utf-8")
    ours[CARD] = repo_card(plan.repo_id, runs, with_results=table).encode("utf-8")
    notes = [] if table else [f"{RESULTS_FILE}: left as it is (a file push-run did not write); no results table"]
    for path, data in ours.items():
        if path != RESULTS_FILE and path in remote.files and not is_our_card(remote.read(path)):
            notes.append(f"{path}: left as it is (a card push-run did not write); the run's files were pushed")
        elif not is_same(remote.files.get(path), data):
            operations.append(CommitOperationAdd(path, data))
    return operations, notes


def stale_files(plan: PushPlan, remote: RemoteRepo) -> list[str]:
    """The run files the earlier push to this folder uploaded (its card, if ours, lists them) that the run lacks."""
    card = plan.repo_path(CARD)
    if card not in remote.files or not is_our_card(remote.read(card)):
        return []
    kept = {plan.repo_path(name) for name in plan.files}
    return sorted(
        path
        for path in set(listed_files(remote.read(card))) - kept
        if path in remote.files and is_run_file(child_of(plan.path_in_repo, path) or "")
    )


def other_runs(plan: PushPlan, remote: RemoteRepo) -> list[RunInfo]:
    """The runs the repo already holds in other folders (their config and scores read from the Hub, checked)."""
    runs = []
    for folder in remote.run_folders():
        if folder != plan.path_in_repo:
            config, scores = remote.run(folder)
            date = run_date(remote.text_of(folder, TIMINGS))
            runs.append(RunInfo(folder, config, scores, remote.run_files(folder), date))
    return runs


__all__ = ["PushPlan", "PushResult", "UploadRefused", "plan_push", "push_run", "read_run_files", "run_file_names"]
