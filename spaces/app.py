"""The longform-eval Space: side-by-side judging with human votes and the LLM judge, checklist annotation
(HelloEval's preparation stage), and a live leaderboard.

As a Hugging Face Space this file is the app (settings from LONGFORM_EVAL_RUNS, LONGFORM_EVAL_RELEASED,
LONGFORM_EVAL_DB, LONGFORM_EVAL_JUDGE; it listens where GRADIO_SERVER_NAME and GRADIO_SERVER_PORT say); locally:
`longform-eval space [--runs runs/] [--db votes.sqlite] [--judge BACKEND:MODEL] [--host H] [--port P]`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import gradio as gr

from longform_eval.dataset_builder.hellobench import TASKS
from longform_eval.spaces.arena import LEVELS, MAX_CHECKLISTS, VOTES, Arena
from longform_eval.spaces.fields import MAX_FILTER_LENGTH, MAX_ID_LENGTH
from longform_eval.spaces.pool import ResponsePool
from longform_eval.spaces.storage import VoteStore

DEFAULT_HOST = "127.0.0.1"
MAX_UPLOAD_BYTES = 1_000_000  # the app has no upload field; this caps gradio's anonymous upload route
GUIDELINE = """**How to annotate.** Read the instruction and the whole response, then answer each checklist on five
levels: **0** fails the requirement; **0.25** meets some of it, with major gaps; **0.5** meets several parts,
but the overall judgement is unclear; **0.75** meets most of it, with minor issues; **1** fully satisfies it,
with nothing to improve. Finally give the response an **overall score from 0 to 10**. The scores are saved in
the schema that `longform-eval fit-weights` reads, to fit the checklist weights."""


def build_app(arena: Arena) -> gr.Blocks:
    with gr.Blocks(title="longform-eval arena") as app:
        with gr.Tab("Arena"):
            with gr.Row():
                task = gr.Dropdown(["", *TASKS], value="", label="task (empty = any)")
                subcategory = gr.Textbox(label="subcategory (optional)", max_length=MAX_FILTER_LENGTH)
                annotator = gr.Textbox(label="your annotator id", value="anonymous", max_length=MAX_ID_LENGTH)
                load = gr.Button("New comparison", elem_id="new-comparison")
            state = gr.State({})
            status = gr.Markdown(elem_id="status")
            prompt = gr.Markdown(max_height=240, elem_id="prompt")
            with gr.Row():
                with gr.Column():
                    gr.Markdown("#### Answer A")
                    left = gr.Markdown(max_height=520, elem_id="answer-a")
                with gr.Column():
                    gr.Markdown("#### Answer B")
                    right = gr.Markdown(max_height=520, elem_id="answer-b")
            with gr.Row():
                buttons = [gr.Button(label, elem_id=f"vote-{VOTES[label]}") for label in VOTES]
            reveal = gr.Markdown(elem_id="reveal")
        with gr.Tab("Annotate"):
            gr.Markdown(GUIDELINE)
            with gr.Row():
                annotate_task = gr.Dropdown(["", *TASKS], value="", label="task (empty = any)")
                annotate_load = gr.Button("Load a response", elem_id="load-annotation")
            annotate_state = gr.State({})
            annotate_prompt = gr.Markdown(max_height=240)
            annotate_response = gr.Markdown(max_height=520)
            radios = [gr.Radio(LEVELS, label=f"checklist {i + 1}", visible=False) for i in range(MAX_CHECKLISTS)]
            overall = gr.Slider(0, 10, step=0.5, value=5, label="overall score (0-10)")
            save = gr.Button("Save annotation")
            saved = gr.Markdown()
        with gr.Tab("Leaderboard"):
            summary = gr.Markdown(elem_id="leaderboard-summary")
            heatmap = gr.Plot(label="win-rate matrix")
            ratings = gr.Dataframe(
                headers=["model", "Elo", "BT", "BT 2.5%", "BT 97.5%", "battles"],
                label="Elo (K=4, 20 shuffles) and Bradley-Terry (95% bootstrap)",
            )
            annotators = gr.Dataframe(
                headers=["annotator", "GSB", "z", "GSB flag", "gold misses", "gold flag", "disqualified"],
                label="annotators",
            )
            runs = gr.Dataframe(
                headers=["run", "benchmark", "model", "judge", "score / wAvg", "unscored"], label="run folders"
            )
            refresh = gr.Button("Refresh")
        board = [summary, heatmap, ratings, annotators, runs]

        load.click(
            arena.new_pair, [task, subcategory, state], [prompt, left, right, state, status], api_name="new_pair"
        )
        for button, label in zip(buttons, VOTES, strict=True):
            button.click(
                lambda a, s, label=label: arena.vote(label, a, s),
                [annotator, state],
                [state, reveal, *board],
                api_name=f"vote_{VOTES[label]}",
            )
        refresh.click(arena.leaderboard, None, board, api_name="leaderboard")
        app.load(arena.leaderboard, None, board)
        annotate_load.click(
            arena.annotation_item,
            [annotate_task, annotate_state],
            [annotate_prompt, annotate_response, annotate_state, *radios],
            api_name="annotation_item",
        )
        save.click(
            arena.save_annotation, [annotator, annotate_state, overall, *radios], saved, api_name="save_annotation"
        )
    return app


def arena_from_settings(
    runs: str | None,
    released: str | None,
    db: str,
    judge: str | None,
    source: str | None = None,
    seed: int | None = None,
    dataset: str | None = None,
) -> Arena:
    runs_path = Path(runs) if runs else None
    pool = ResponsePool.load(runs_path, Path(released) if released else None, source, dataset)
    arena_judge = None
    if judge:
        from longform_eval.inference.backends import create_backend
        from longform_eval.inference.config import ModelSpec
        from longform_eval.spaces.judging import ArenaJudge

        arena_judge = ArenaJudge(create_backend(ModelSpec.parse(judge)))
    return Arena(pool, VoteStore(db), arena_judge, runs_path, seed)


def default_released() -> str | None:
    candidate = Path(__file__).resolve().parents[1].parent / "shared/data/hellobench/generations/main_exp"
    return str(candidate) if candidate.is_dir() else None


def main(settings: dict[str, Any] | None = None) -> None:
    settings = settings or {}
    arena = arena_from_settings(
        settings.get("runs") or os.environ.get("LONGFORM_EVAL_RUNS"),
        settings.get("released") or os.environ.get("LONGFORM_EVAL_RELEASED") or default_released(),
        settings.get("db") or os.environ.get("LONGFORM_EVAL_DB", "votes.sqlite"),
        settings.get("judge") or os.environ.get("LONGFORM_EVAL_JUDGE"),
        settings.get("source"),
        dataset=settings.get("dataset") or os.environ.get("LONGFORM_EVAL_DATASET"),
    )
    launch(build_app(arena), settings)


def server_address(settings: Mapping[str, Any], environ: Mapping[str, str]) -> tuple[str, int | None]:
    """Where to listen: an explicit setting (`--host`, `--port`) wins, then GRADIO_SERVER_NAME / GRADIO_SERVER_PORT
    (a deployed Space sets them), then 127.0.0.1 and gradio's own port choice (None).

    Raises:
        ValueError: GRADIO_SERVER_PORT is set but is not a port number.
    """
    host = settings.get("host") or environ.get("GRADIO_SERVER_NAME") or DEFAULT_HOST
    port = settings.get("port")
    if port is None and environ.get("GRADIO_SERVER_PORT"):
        text = environ["GRADIO_SERVER_PORT"].strip()
        if not text.isdigit() or not 0 < int(text) < 65536:
            raise ValueError(f"GRADIO_SERVER_PORT must be a port number, not {text!r}")
        port = int(text)
    return host, None if port is None else int(port)


def launch(
    app: gr.Blocks, settings: Mapping[str, Any] | None = None, environ: Mapping[str, str] | None = None, **extra
):
    """Start `app` as the Space runs it: at `server_address` (environment: `os.environ` unless given), with uploads
    capped at MAX_UPLOAD_BYTES (413 above it). `extra` goes to `gr.Blocks.launch` (tests: prevent_thread_lock)."""
    host, port = server_address(settings or {}, os.environ if environ is None else environ)
    return app.launch(server_name=host, server_port=port, max_file_size=MAX_UPLOAD_BYTES, **extra)


if __name__ == "__main__":
    main()
