"""The arena's behaviour (pairs, votes, the LLM judge, annotations), apart from its layout so that it can be
tested without a browser."""

from __future__ import annotations

import random
import uuid
from pathlib import Path

import gradio as gr

from longform_eval.metric import Unscored
from longform_eval.metric.pairwise import Outcome, swap
from longform_eval.spaces.fields import MAX_FILTER_LENGTH, FieldError, check_id, check_text
from longform_eval.spaces.leaderboard import (
    agreement_summary,
    annotator_table,
    ratings_table,
    run_scores,
    win_rate_figure,
)
from longform_eval.spaces.pool import ResponsePool
from longform_eval.spaces.safe_markdown import inert_markdown
from longform_eval.spaces.storage import AlreadyVoted, Vote, VoteStore

MAX_CHECKLISTS = 7
LEVELS = ["0", "0.25", "0.5", "0.75", "1"]
VOTES = {"A is better": "A", "B is better": "B", "Both good": "equally_good", "Both bad": "equally_bad"}
ALREADY_VOTED = "**You already voted on this comparison; load a new one.**"


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
        self, pool: ResponsePool, store: VoteStore, judge=None, runs: Path | None = None, seed: int | None = None
    ):
        self.pool = pool
        self.store = store
        self.judge = judge
        self.runs = runs
        self.rng = random.Random(seed)

    def new_pair(self, task: str, subcategory: str, state: dict | None):
        state = dict(state or {})
        state.setdefault("session", uuid.uuid4().hex)
        try:
            check_text(subcategory or "", "subcategory filter", MAX_FILTER_LENGTH)
            pair = self.pool.random_pair(self.rng, task or None, subcategory or None)
        except (FieldError, LookupError) as error:
            return "", "", "", state, f"**{error}**"
        row = self.pool.rows[pair.item_id]
        state.update(
            item_id=pair.item_id,
            model_a=pair.model_a,
            model_b=pair.model_b,
            order=pair.order_shown,
            token=uuid.uuid4().hex,  # this comparison; the store takes one vote per token
        )
        prompt = f"**{row['task']} / {row['subcategory']}** (`{pair.item_id}`)\n\n" + pane(row["instruction"])
        return (
            prompt,
            pane(self.pool.response(pair.item_id, pair.model_a)),
            pane(self.pool.response(pair.item_id, pair.model_b)),
            state,
            "Which answer is better?",
        )

    def vote(self, label: str, annotator: str, state: dict | None):
        """Store one vote for the comparison in `state`; a second one (even fired at the same moment) is refused."""
        state = dict(state or {})
        if not state.get("token"):
            return state, "**Load a comparison first.**", *self.leaderboard()
        try:
            annotator = annotator_id(annotator)
        except FieldError as error:
            return state, f"**Not saved: {error}.**", *self.leaderboard()
        if self.store.has_vote(state["token"]):  # spares the judge call; the UNIQUE index decides below
            return state, ALREADY_VOTED, *self.leaderboard()
        verdict = self.judge_pair(state)
        try:
            self.store.add_vote(
                Vote(
                    annotator=annotator,
                    session=state["session"],
                    item_id=state["item_id"],
                    model_a=state["model_a"],
                    model_b=state["model_b"],
                    order_shown=state["order"],
                    outcome=VOTES.get(label, label),
                    judge_outcome=None if verdict is None else getattr(verdict.combined, "value", "unscored"),
                    judge_flipped=None if verdict is None else verdict.flipped,
                    token=state["token"],
                )
            )
        except AlreadyVoted:
            return state, ALREADY_VOTED, *self.leaderboard()
        reveal = f"You voted **{label}**. A was **{state['model_a']}**, B was **{state['model_b']}**.\n\n"
        reveal += self.describe_judge(verdict)
        return state, reveal, *self.leaderboard()

    def judge_pair(self, state: dict):
        if self.judge is None:
            return None
        row = self.pool.rows[state["item_id"]]
        return self.judge.judge(
            row["instruction"],
            self.pool.response(state["item_id"], state["model_a"]),
            self.pool.response(state["item_id"], state["model_b"]),
        )

    @staticmethod
    def describe_judge(verdict) -> str:
        if verdict is None:
            return "No LLM judge is configured (start with `--judge BACKEND:MODEL`)."

        def name(value) -> str:
            return value.value if isinstance(value, Outcome) else f"unscored ({value.reason})"

        mapped_back = verdict.swapped if isinstance(verdict.swapped, Unscored) else swap(verdict.swapped)
        flip = {True: "**the verdict flipped when the answers were swapped**", False: "no flip", None: "flip unknown"}[
            verdict.flipped
        ]
        return (
            f"LLM judge: **{name(verdict.combined)}** (A shown first: {name(verdict.original)}; B shown first, "
            f"mapped back: {name(mapped_back)}; {flip})."
        )

    def leaderboard(self):
        votes = self.store.votes()
        summary = agreement_summary(votes)

        def pct(value):
            return "-" if value is None else f"{100 * value:.1f}%"

        text = (
            f"**{summary['votes']} votes.** Agreement human-human: {pct(summary['human_human'])}; "
            f"human-judge: {pct(summary['human_judge'])}; judge flip rate: {pct(summary['judge_flip_rate'])}."
        )
        return (text, win_rate_figure(votes), ratings_table(votes), annotator_table(votes), run_scores(self.runs))

    def annotation_item(self, task: str, state: dict | None):
        state = dict(state or {})
        items = self.pool.items(task or None) or [i for i in self.pool.responses if self.pool.responses[i]]
        if not items:
            return ["**No responses loaded.**", "", state] + [gr.update(visible=False)] * MAX_CHECKLISTS
        item_id = self.rng.choice(sorted(items))
        model = self.rng.choice(sorted(self.pool.responses[item_id]))
        row = self.pool.rows[item_id]
        state.update(item_id=item_id, model=model)
        radios = [
            gr.update(
                visible=i < len(row["checklists"]),
                value=None,
                label=f"{i + 1}. {row['checklists'][i]}" if i < len(row["checklists"]) else "",
            )
            for i in range(MAX_CHECKLISTS)
        ]
        header = f"**{row['task']} / {row['subcategory']}** (`{item_id}`, model hidden)\n\n" + pane(row["instruction"])
        return [header, pane(self.pool.response(item_id, model)), state, *radios]

    def save_annotation(self, annotator: str, state: dict | None, overall: float, *levels):
        state = dict(state or {})
        if not state.get("item_id"):
            return "**Load a response first.**"
        try:
            annotator = annotator_id(annotator)
        except FieldError as error:
            return f"**Not saved: {error}.**"
        row = self.pool.rows[state["item_id"]]
        chosen = list(levels[: len(row["checklists"])])
        if any(level is None for level in chosen):
            return "**Score every checklist before saving.**"
        self.store.add_annotation(
            annotator,
            state["item_id"],
            row["subcategory"],
            state["model"],
            [float(x) for x in chosen],
            float(overall),
        )
        return f"Saved ({len(self.store.annotations())} annotations in total)."
