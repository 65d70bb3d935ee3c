"""Votes that outlive the Space: with LONGFORM_EVAL_VOTES_REPO=ORG/NAME they are kept in that private dataset repo.

At start the repo's journal (`journal`: `votes/*.jsonl`, `annotations/*.jsonl`) is downloaded with
`snapshot_download` and imported into the (fresh or kept) SQLite store; what the store holds and the repo lacks
(a database on persistent storage with votes from after the last push) is appended to this process's journal
files. From then on every vote and annotation stored is appended to them too, and huggingface_hub's
`CommitScheduler` commits the files that changed every LONGFORM_EVAL_VOTES_EVERY minutes (default 5), once more
when the app stops (`HubJournal.push`, on SIGTERM) and at interpreter exit (the scheduler's own atexit hook).
A process killed outright (SIGKILL) loses at most the votes stored since its last push.
"""

from __future__ import annotations

import re
import tempfile
import warnings
from collections.abc import Mapping
from dataclasses import dataclass

from huggingface_hub import CommitScheduler, HfApi, get_token, snapshot_download

from longform_eval.spaces.journal import KINDS, VoteJournal, import_records, missing_records, read_journal
from longform_eval.spaces.records import vote_record
from longform_eval.spaces.storage import VoteStore

REPO_VARIABLE = "LONGFORM_EVAL_VOTES_REPO"
EVERY_VARIABLE = "LONGFORM_EVAL_VOTES_EVERY"
DEFAULT_EVERY_MINUTES = 5.0
PATTERNS = [f"{kind}/*.jsonl" for kind in KINDS]
REPO_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*")


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
    if not REPO_ID.fullmatch(repo_id):
        raise ValueError(f"{REPO_VARIABLE} must be a dataset repo id ORG/NAME, not {repo_id!r}")
    text = environ.get(EVERY_VARIABLE, "").strip() or str(DEFAULT_EVERY_MINUTES)
    try:
        every = float(text)
    except ValueError:
        every = 0.0
    if not 0 < every < float("inf"):
        raise ValueError(f"{EVERY_VARIABLE} must be a positive number of minutes, not {text!r}")
    return VotesRepo(repo_id, every)


class HubJournal(VoteJournal):
    """This process's journal files, in a folder that `scheduler` commits to the repo (under the same lock)."""

    def __init__(self, scheduler: CommitScheduler):
        super().__init__(scheduler.folder_path, scheduler.lock)
        self.scheduler = scheduler

    def push(self) -> None:
        """Commit what changed since the last push, now, and wait for it (queued behind a push under way)."""
        try:
            self.scheduler.trigger().result()
        except Exception as error:  # noqa: BLE001 (the Hub unreachable at shutdown: say what stays where)
            warnings.warn(
                f"{self.scheduler.repo_id}: the last votes could not be pushed ({error}); they are in {self.folder}",
                stacklevel=2,
            )


def keep_votes(store: VoteStore, setting: VotesRepo, api: HfApi | None = None) -> HubJournal:
    """Restore `store` from the repo, then journal every vote and annotation it stores to the repo.

    `api` (default: `HfApi()`, the endpoint and token of the environment: HF_ENDPOINT, HF_TOKEN) makes every call.

    Raises:
        ValueError: no token to write with.
        huggingface_hub errors: the repo cannot be created or read (the Space does not start without its votes).
    """
    api = api or HfApi()
    if not (api.token or get_token()):
        raise ValueError(f"{REPO_VARIABLE}={setting.repo_id} needs a token that can write it in HF_TOKEN")
    api.create_repo(setting.repo_id, repo_type="dataset", private=True, exist_ok=True)
    if not api.dataset_info(setting.repo_id, revision="main").private:
        warnings.warn(f"{setting.repo_id}: the votes repo is public; votes name their annotators", stacklevel=2)
    snapshot = snapshot_download(
        setting.repo_id, repo_type="dataset", allow_patterns=PATTERNS, endpoint=api.endpoint, token=api.token
    )
    records = read_journal(snapshot, f"hf://datasets/{setting.repo_id}")
    restored = import_records(store, records)
    scheduler = CommitScheduler(
        repo_id=setting.repo_id,
        repo_type="dataset",
        folder_path=tempfile.mkdtemp(prefix="longform-eval-votes-"),
        every=setting.every,
        private=True,
        allow_patterns=PATTERNS,
        hf_api=api,
    )
    journal = HubJournal(scheduler)
    store.journal = journal
    local = missing_records(store, records)
    journal.append("votes", [vote_record(row) for row in local.votes])
    journal.append("annotations", local.annotations)
    print(
        f"{setting.repo_id}: {restored[0]} votes and {restored[1]} annotations restored ({len(local.votes)} and "
        f"{len(local.annotations)} from this disk added); pushed every {setting.every:g} minutes",
        flush=True,
    )
    return journal


__all__ = ["EVERY_VARIABLE", "REPO_VARIABLE", "HubJournal", "VotesRepo", "keep_votes", "votes_repo"]
