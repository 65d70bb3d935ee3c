"""Votes that outlive the Space: with LONGFORM_EVAL_VOTES_REPO=ORG/NAME they are kept in that private dataset repo.

At start the repo's journal (`journal`: `votes/*.jsonl`, `annotations/*.jsonl`) is downloaded with
`snapshot_download` and imported into the (fresh or kept) SQLite store; what the store holds and the repo lacks
(a database on persistent storage with votes from after the last push) is appended to this process's journal
files. From then on every vote and annotation stored is appended to them too, and huggingface_hub's
`CommitScheduler` commits the files that changed every LONGFORM_EVAL_VOTES_EVERY minutes (default 5), once more
when the app stops (`HubJournal.push` on SIGTERM, `HubJournal.close` as it returns; the scheduler's own atexit hook
otherwise). A process killed outright (SIGKILL) loses at most the votes stored since its last push. Votes and
annotations name their annotators: a repo that exists and is public is refused, here and by `space-export
--push-to` (`push_votes_to_hub`).
"""

from __future__ import annotations

import shutil
import tempfile
import warnings
from collections.abc import Mapping
from concurrent.futures import Future
from dataclasses import dataclass

from huggingface_hub import CommitScheduler, HfApi, get_token

from longform_eval.common.plurals import counted
from longform_eval.inference.hub.snapshot import fenced_snapshot
from longform_eval.inference.hub.sources import DATASETS_PREFIX, checked_repo_id
from longform_eval.spaces.export import EXPORT_MARKER
from longform_eval.spaces.journal import KINDS, VoteJournal, missing_records, read_journal
from longform_eval.spaces.records import vote_record
from longform_eval.spaces.storage import VoteStore

REPO_VARIABLE = "LONGFORM_EVAL_VOTES_REPO"
EVERY_VARIABLE = "LONGFORM_EVAL_VOTES_EVERY"
DEFAULT_EVERY_MINUTES = 5.0
PATTERNS = [f"{kind}/*.jsonl" for kind in KINDS]


@dataclass(frozen=True)
class VotesRepo:
    """Where the votes are kept: a dataset repo id, and how many minutes apart the scheduled commits are."""

    repo_id: str
    every: float = DEFAULT_EVERY_MINUTES


def votes_repo(environ: Mapping[str, str]) -> VotesRepo | None:
    """The setting in LONGFORM_EVAL_VOTES_REPO and LONGFORM_EVAL_VOTES_EVERY; None when the repo is not set.

    Raises:
        ValueError: naming the variable, when the repo is not ORG/NAME or the minutes are not a positive number.
    """
    repo_id = environ.get(REPO_VARIABLE, "").strip()
    if not repo_id:
        return None
    checked_repo_id(repo_id, REPO_VARIABLE)
    text = environ.get(EVERY_VARIABLE, "").strip() or str(DEFAULT_EVERY_MINUTES)
    try:
        every = float(text)
    except ValueError:
        every = 0.0
    if not 0 < every < float("inf"):
        raise ValueError(f"{EVERY_VARIABLE} must be a positive number of minutes, not {text!r}")
    return VotesRepo(repo_id, every)


class HubJournal(VoteJournal):
    """This process's journal files, in a temporary folder of its own that `scheduler` commits to the repo (under
    the same lock)."""

    def __init__(self, scheduler: CommitScheduler):
        super().__init__(scheduler.folder_path, scheduler.lock)
        self.scheduler = scheduler

    def push(self) -> bool:
        """Commit what changed since the last push, now, and wait for it (queued behind a push under way); whether
        it was pushed (a failure is warned about)."""
        return self.pushed(self.scheduler.trigger())

    def close(self) -> None:
        """The last push: the scheduler stops (no scheduled push from now on, nor at exit), what changed is committed
        and the folder is removed; a folder whose last push failed is kept, and named in the warning."""
        self.scheduler.stop()
        if self.pushed(self.scheduler.api.run_as_future(self.scheduler.push_to_hub)):  # after a push under way
            shutil.rmtree(self.folder, ignore_errors=True)

    def pushed(self, push: Future) -> bool:
        try:
            push.result()
        except Exception as error:  # noqa: BLE001 (the Hub unreachable at shutdown: say what stays where)
            reason = " ".join(str(error).split())  # one line: the Hub's errors span several
            warnings.warn(
                f"{self.scheduler.repo_id}: the last votes could not be pushed ({reason}); they are in {self.folder}",
                stacklevel=3,
            )
            return False
        return True


def private_repo(api: HfApi, repo_id: str, where: str) -> None:
    """The dataset repo `repo_id`, created private if missing.

    Raises:
        ValueError: naming `where` (the setting), when the repo exists and is public: votes and annotations name
            their annotators, and go to a private repo only.
    """
    api.create_repo(repo_id, repo_type="dataset", private=True, exist_ok=True)
    if not api.dataset_info(repo_id).private:
        raise ValueError(
            f"{where}: the dataset repo {repo_id} is public, but votes and annotations name their annotators and go "
            "to a private repo only; make it private on the Hub (or choose another repo)"
        )


def require_token(setting: VotesRepo, api: HfApi | None = None) -> str:
    """The setting as people read it (`LONGFORM_EVAL_VOTES_REPO=ORG/NAME`), once a token to write the repo is
    there; a ValueError saying so otherwise. Checked before anything is downloaded (the arena's responses)."""
    where = f"{REPO_VARIABLE}={setting.repo_id}"
    if not ((api.token if api is not None else None) or get_token()):
        raise ValueError(f"{where} needs a token that can write it in HF_TOKEN")
    return where


def keep_votes(store: VoteStore, setting: VotesRepo, api: HfApi | None = None) -> HubJournal:
    """Restore `store` from the repo, then journal every vote and annotation it stores to the repo.

    `api` (default: `HfApi()`, the endpoint and token of the environment: HF_ENDPOINT, HF_TOKEN) makes every call.

    Raises:
        ValueError: no token to write with, or the repo is public (`private_repo`).
        huggingface_hub errors: the repo cannot be created or read (the Space does not start without its votes).
    """
    api = api or HfApi()
    where = require_token(setting, api)
    private_repo(api, setting.repo_id, where)
    snapshot = fenced_snapshot(setting.repo_id, allow_patterns=PATTERNS, api=api)
    records = read_journal(snapshot, f"{DATASETS_PREFIX}{setting.repo_id}")
    restored = store.import_records(records.votes, records.annotations)
    folder = tempfile.mkdtemp(prefix="longform-eval-votes-")  # removed by `HubJournal.close`
    try:
        scheduler = CommitScheduler(
            repo_id=setting.repo_id,
            repo_type="dataset",
            folder_path=folder,
            every=setting.every,
            private=True,
            allow_patterns=PATTERNS,
            hf_api=api,
        )
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    journal = HubJournal(scheduler)
    store.journal = journal
    local = missing_records(store, records)
    journal.append("votes", [vote_record(row) for row in local.votes])
    journal.append("annotations", local.annotations)
    print(
        f"{setting.repo_id}: {counted(restored[0], 'vote')} and {counted(restored[1], 'annotation')} restored "
        f"({len(local.votes)} and {len(local.annotations)} from this disk added); pushed every "
        f"{counted(setting.every, 'minute', spec='g')}",
        flush=True,
    )
    return journal


def push_votes_to_hub(store: VoteStore, repo_id: str, api: HfApi | None = None) -> str:
    """Upload the exported votes and annotations (`VoteStore.export`) to the private dataset repo `repo_id`; the
    commit's URL. `api`: as in `keep_votes`.

    Raises:
        ValueError: the repo exists and is public (`private_repo`).
    """
    api = api or HfApi()
    private_repo(api, repo_id, f"--push-to {repo_id}")
    with tempfile.TemporaryDirectory() as folder:
        store.export(folder)
        info = api.upload_folder(
            repo_id=repo_id,
            repo_type="dataset",
            folder_path=folder,
            ignore_patterns=[EXPORT_MARKER],
            commit_message="longform-eval space: votes and annotations",
        )
    return info.commit_url


__all__ = [
    "require_token",
    "EVERY_VARIABLE",
    "REPO_VARIABLE",
    "HubJournal",
    "VotesRepo",
    "keep_votes",
    "private_repo",
    "push_votes_to_hub",
    "votes_repo",
]
