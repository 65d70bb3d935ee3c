"""The arena's behaviour (pairs, votes, the LLM judge, annotations), apart from its layout so that it can be
tested without a browser.

A vote is one insert into the store and returns at once: the leaderboard is never computed in the vote handler
but by `BoardCache` when someone looks at it. A vote is stored only for a comparison this arena offered: its token
signs the pair it was issued for (an HMAC with a key of this process), so a vote with no pair loaded, a forged or
stale state, or a pair the pool does not hold is refused with a message, never stored. With an LLM judge, a vote waits
at most `judge_seconds` for its verdict (JUDGE_WORKERS calls at once): past that it is stored with the judge
unscored, so a slow judge never holds a voter.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import random
import secrets
import uuid
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path

import gradio as gr

from longform_eval.common.plurals import counted
from longform_eval.metric import Unscored
from longform_eval.metric.pairwise import Outcome, swap
from longform_eval.spaces.board_cache import BoardCache
from longform_eval.spaces.board_text import NO_JUDGE_CONFIGURED
from longform_eval.spaces.fields import MAX_FILTER_LENGTH, FieldError, check_id, check_text
from longform_eval.spaces.pool import ResponsePool
from longform_eval.spaces.safe_markdown import inert_markdown, inert_text
from longform_eval.spaces.skipped import skipped_markdown
from longform_eval.spaces.storage import AlreadyVoted, Vote, VoteStore

MAX_CHECKLISTS = 7
LEVELS = ["0", "0.25", "0.5", "0.75", "1"]
VOTES = {"A is better": "A", "B is better": "B", "Both good": "equally_good", "Both bad": "equally_bad"}
ALREADY_VOTED = "**You already voted on this comparison; load a new one.**"
ASK = "Which answer is better?"
NO_PAIR = "**Not saved: no comparison is loaded; click *New comparison* first.**"
NO_SUCH_PAIR = "**Not saved: this Space holds no such pair of answers; click *New comparison*.**"
NOT_OFFERED = "**Not saved: this Space did not offer this comparison (or offered it before a restart); load one.**"
PAIR_FIELDS = ("session", "item_id", "model_a", "model_b", "order")  # what a comparison token signs
NONCE_CHARS = 24  # a token is a random nonce and its signature: 24 + 32 characters
JUDGE_SECONDS = 120.0  # the longest a vote waits for the LLM judge's verdict
JUDGE_WORKERS = 4  # LLM judge calls at once


def pane(text: str) -> str:
    return inert_markdown(text)


def annotator_id(typed: str | None) -> str:
    """The annotator id as stored: stripped, "anonymous" when blank.

    Raises:
        FieldError: too long or with control characters.
    """
    return check_id((typed or "").strip() or "anonymous", "annotator id")


class Arena:
    """The app's behaviour, separate from its layout so that it can be tested without a browser."""

    def __init__(
        self,
        pool: ResponsePool,
        store: VoteStore,
        judge=None,
        runs: Sequence[Path] = (),
        seed: int | None = None,
        judge_seconds: float = JUDGE_SECONDS,
        skipped: Sequence[str] = (),
    ):
        self.pool = pool
        self.skipped = tuple(skipped)  # the runs it could not read, each with its reason (`skipped`)
        self.store = store
        self.judge = judge
        self.judge_seconds = judge_seconds
        self.judging = ThreadPoolExecutor(JUDGE_WORKERS, "arena-judge") if judge is not None else None
        self.board = BoardCache(runs)
        self.rng = random.Random(seed)
        self.secret = secrets.token_bytes(32)  # signs the comparisons this arena offers

    def new_pair(self, group: str | None, subgroup: str | None, state: dict | None):
        """A random pair of answers to one question: (question, answer A, answer B, state, status line)."""
        state = dict(state or {})
        state.setdefault("session", uuid.uuid4().hex)
        try:
            check_text(subgroup or "", "subcategory filter", MAX_FILTER_LENGTH)
            pair = self.pool.random_pair(self.rng, group or None, subgroup or None)
        except (FieldError, LookupError) as error:
            for name in (*PAIR_FIELDS[1:], "token"):  # the pair shown before is gone from the page: no vote for it
                state.pop(name, None)
            return "", "", "", state, self.no_pair(error)
        item = self.pool.item(pair.item_id)
        state.update(item_id=pair.item_id, model_a=pair.model_a, model_b=pair.model_b, order=pair.order_shown)
        # this comparison; the store takes one vote per token
        state["token"] = self.sign(uuid.uuid4().hex[:NONCE_CHARS], [state[name] for name in PAIR_FIELDS])
        return (
            f"{item.heading()}\n\n{pane(item.question)}",
            pane(self.pool.response(pair.item_id, pair.model_a)),
            pane(self.pool.response(pair.item_id, pair.model_b)),
            state,
            ASK,
        )

    def no_pair(self, error: Exception) -> str:
        """Why no pair is shown: the filter's refusal, or (no pair at all) the runs that could not be read."""
        if self.pool.pairable or not self.skipped:
            return f"**{error}**"
        return f"**{error}.**\n\n{skipped_markdown(self.skipped)}"

    def vote(self, label: str, annotator: str | None, state: dict | None) -> str:
        """Store one vote for the comparison in `state` (one insert) and return the reveal; a second vote on the same
        comparison, even fired at the same moment, is refused by the store."""
        state = state or {}
        refused = self.refusal(state)
        if refused:
            return refused
        try:
            annotator = annotator_id(annotator)
        except FieldError as error:
            return f"**Not saved: {error}.**"
        verdict = None
        if self.judge is not None:
            if self.store.has_vote(state["token"]):  # spares the judge call; the UNIQUE index decides below
                return ALREADY_VOTED
            verdict = self.timed_verdict(state)
        try:
            self.store.add_vote(vote_of(state, annotator, VOTES.get(label, label), verdict))
        except AlreadyVoted:
            return ALREADY_VOTED
        model_a, model_b = inert_text(state["model_a"]), inert_text(state["model_b"])
        return (
            f"You voted **{inert_text(label)}**. A was **{model_a}**, B was **{model_b}**. "
            f"*New comparison* loads the next pair.\n\n{self.describe_judge(verdict)}"
        )

    def sign(self, nonce: str, fields: Sequence[str]) -> str:
        """The comparison token for `fields` (PAIR_FIELDS' values): `nonce` and its HMAC under this arena's key."""
        payload = json.dumps([nonce, *fields]).encode()
        return nonce + hmac.new(self.secret, payload, hashlib.sha256).hexdigest()[:32]

    def refusal(self, state: dict) -> str | None:
        """Why a vote on the comparison in `state` cannot be stored, as the message to show; None when it can."""
        token, fields = state.get("token"), [state.get(name) for name in PAIR_FIELDS]
        if not token:
            return NO_PAIR
        if not all(isinstance(value, str) for value in [token, *fields]):
            return NOT_OFFERED
        if not self.pool.holds(state["item_id"], state["model_a"], state["model_b"]):
            return NO_SUCH_PAIR
        expected = self.sign(token[:NONCE_CHARS], fields)
        return None if hmac.compare_digest(token.encode(), expected.encode()) else NOT_OFFERED

    def timed_verdict(self, state: dict):
        """The judge's verdict on the comparison in `state`, or an unscored one once `judge_seconds` have passed (the
        call goes on in its worker; its verdict is dropped)."""
        from longform_eval.spaces.judging import JudgeVerdict

        call = self.judging.submit(self.judge_pair, state)
        try:
            return call.result(timeout=self.judge_seconds)
        except FutureTimeout:
            call.cancel()  # still waiting for a worker: never started
            return JudgeVerdict.unscored(f"the judge took over {self.judge_seconds:g} s")

    def judge_pair(self, state: dict):
        """The LLM judge's verdict on the comparison in `state` (both orders)."""
        key = state["item_id"]
        return self.judge.judge(
            self.pool.item(key).question,
            self.pool.response(key, state["model_a"]),
            self.pool.response(key, state["model_b"]),
        )

    @staticmethod
    def describe_judge(verdict) -> str:
        if verdict is None:
            return NO_JUDGE_CONFIGURED

        def name(value) -> str:
            return inert_text(value.value if isinstance(value, Outcome) else f"unscored ({value.reason})")

        mapped_back = verdict.swapped if isinstance(verdict.swapped, Unscored) else swap(verdict.swapped)
        flip = {True: "**the verdict flipped when the answers were swapped**", False: "no flip", None: "flip unknown"}[
            verdict.flipped
        ]
        return (
            f"LLM judge: **{name(verdict.combined)}** (A shown first: {name(verdict.original)}; B shown first, "
            f"mapped back: {name(mapped_back)}; {flip})."
        )

    def leaderboard(self) -> tuple:
        """The Leaderboard tab's outputs, recomputed only when the number of stored votes changed."""
        return self.board.current(self.store).outputs()

    def board_update(self, seen: int | None) -> tuple:
        """The Leaderboard tab's outputs and the vote count they show, or no update at all when the page already
        shows this count (`seen`): a timer tick on an unchanged board sends nothing (no plot re-rendered)."""
        board = self.board.current(self.store)
        if board.votes == seen:
            return (*[gr.skip()] * len(board.outputs()), seen)
        return (*board.outputs(), board.votes)

    def annotation_item(self, group: str | None, state: dict | None):
        """A random response to a question with checklists, the model hidden, and one radio per checklist."""
        state = dict(state or {})
        keys = self.pool.annotatable(group or None) or self.pool.annotatable()
        if not keys:
            hidden = [gr.update(visible=False)] * MAX_CHECKLISTS
            return ["**No question with checklists is loaded.**", "", state, *hidden]
        key = self.rng.choice(keys)
        model = self.rng.choice(sorted(self.pool.responses[key]))
        item = self.pool.item(key)
        state.update(item_id=key, model=model)
        radios = [
            gr.update(
                visible=i < len(item.checklists),
                value=None,
                label=f"{i + 1}. {item.checklists[i]}" if i < len(item.checklists) else "",
            )
            for i in range(MAX_CHECKLISTS)
        ]
        header = f"{item.heading()} (model hidden)\n\n{pane(item.question)}"
        return [header, pane(self.pool.response(key, model)), state, *radios]

    def save_annotation(self, annotator: str | None, state: dict | None, overall: float, *levels):
        state = dict(state or {})
        if not state.get("item_id"):
            return "**Load a response first.**"
        try:
            annotator = annotator_id(annotator)
        except FieldError as error:
            return f"**Not saved: {error}.**"
        item = self.pool.item(state["item_id"])
        chosen = list(levels[: len(item.checklists)])
        if any(level is None for level in chosen):
            return "**Score every checklist before saving.**"
        self.store.add_annotation(
            annotator, item.sample_id, item.subgroup, state["model"], [float(x) for x in chosen], float(overall)
        )
        return f"Saved ({counted(len(self.store.annotations()), 'annotation')} in total)."


def vote_of(state: dict, annotator: str, outcome: str, verdict) -> Vote:
    """The stored vote for the comparison in `state`; `verdict` is the LLM judge's (None without a judge)."""
    return Vote(
        annotator=annotator,
        session=state["session"],
        item_id=state["item_id"],
        model_a=state["model_a"],
        model_b=state["model_b"],
        order_shown=state["order"],
        outcome=outcome,
        judge_outcome=None if verdict is None else getattr(verdict.combined, "value", "unscored"),
        judge_flipped=None if verdict is None else verdict.flipped,
        token=state["token"],
    )
