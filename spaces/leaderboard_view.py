"""The Leaderboard tab's components, in the order of `Board.outputs`: each table with the sentence above it."""

from __future__ import annotations

import gradio as gr

from .board_text import ARENA_HEADERS
from .leaderboard import (
    ANNOTATOR_HEADERS,
    ANNOTATOR_TYPES,
    ARENA_TYPES,
    RATING_HEADERS,
    RATING_TYPES,
    RUN_HEADERS,
    RUN_TYPES,
)


def leaderboard_components() -> list[gr.components.Component]:
    """The Leaderboard tab's outputs, in the order of `Board.outputs`."""
    return [
        gr.Markdown(elem_id="leaderboard-summary"),
        gr.Markdown(elem_id="arena-note"),
        table(ARENA_HEADERS, ARENA_TYPES, "Arena: ranks, win rates with 95% intervals, judge vs humans", "arena-table"),
        gr.Markdown(elem_id="arena-unranked"),
        gr.Plot(label="human votes: win-rate matrix"),
        gr.Markdown(elem_id="human-note"),
        table(RATING_HEADERS, RATING_TYPES, "human votes: Elo (K=4, 20 shuffles), Bradley-Terry (95% bootstrap)"),
        gr.Markdown(elem_id="judge-note"),
        table(RATING_HEADERS, RATING_TYPES, "LLM judge on the same comparisons: Elo, Bradley-Terry"),
        gr.Markdown(elem_id="annotators-note"),
        table(ANNOTATOR_HEADERS, ANNOTATOR_TYPES, "annotators (human votes)"),
        gr.Markdown(elem_id="runs-note"),
        table(RUN_HEADERS, RUN_TYPES, "run folders: their LLM-judge scores", "runs-table"),
    ]


def table(headers: list[str], types: list[str], label: str, elem_id: str | None = None) -> gr.Dataframe:
    """A leaderboard table; its text columns are markdown, escaped by `Board.outputs` (no LaTeX rendering)."""
    return gr.Dataframe(headers=headers, datatype=types, label=label, latex_delimiters=[], elem_id=elem_id, wrap=True)
