"""The longform-eval Space: side-by-side judging with human votes and the LLM judge, checklist annotation
(HelloEval's preparation stage), and a live leaderboard.

As a Hugging Face Space this file is the app (settings from LONGFORM_EVAL_RUNS, LONGFORM_EVAL_RELEASED,
LONGFORM_EVAL_DB, LONGFORM_EVAL_JUDGE, LONGFORM_EVAL_JUDGE_ARGS, LONGFORM_EVAL_VOTES_REPO and
LONGFORM_EVAL_VOTES_EVERY; it listens where GRADIO_SERVER_NAME and GRADIO_SERVER_PORT say); locally:
`longform-eval space [--released ORG/hellobench | FOLDER]
[--runs FOLDER [FOLDER ...]] [--db votes.sqlite] [--judge BACKEND:MODEL] [--host H] [--port P]`. Without responses
to compare (neither runs nor released responses) it stops at once, saying in one line what to set. Every input has
a ceiling (`metric.space_limits`); the page is served with a bounded queue, and SIGTERM (a Space restarting) stops it
within seconds, its votes pushed first (`metric.space_serving`).
"""

from __future__ import annotations

import os
import re
import sys
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import gradio as gr

from longform_eval.inference.hub.client import guard_hub_client
from longform_eval.inference.hub.sources import local_path
from longform_eval.metric.space_limits import limit_of
from longform_eval.metric.space_serving import BoundedBlocks
from longform_eval.spaces.arena import LEVELS, MAX_CHECKLISTS, VOTES, Arena
from longform_eval.spaces.fields import MAX_FILTER_LENGTH, MAX_ID_LENGTH
from longform_eval.spaces.hub_votes import HubJournal, VotesRepo, keep_votes, require_token, votes_repo
from longform_eval.spaces.leaderboard_view import leaderboard_components
from longform_eval.spaces.page_policy import with_page_policy
from longform_eval.spaces.pool import ResponsePool
from longform_eval.spaces.run_folders import run_folders
from longform_eval.spaces.skipped import named, noted_skips, skipped_markdown
from longform_eval.spaces.storage import VoteStore

DEFAULT_HOST = "127.0.0.1"
TITLE = "# longform-eval arena: which long answer is better?"
HOW_TO_VOTE = (
    "**How to vote:** read the question and the two anonymous answers, then click *A is better*, *B is better*, "
    "*Both good* or *Both bad*; the models are named after your vote, and *New comparison* loads the next pair."
)
LEADERBOARD_SECONDS = 30.0  # while the Leaderboard tab is open, it is refreshed this often (if the votes changed)
# Pairs and votes are short (an insert each): they never wait for one another or for the leaderboard, which has a
# queue of its own with one worker (its cache makes the viewers who wait behind a computation share its result).
ARENA_EVENT: dict[str, Any] = {"concurrency_limit": None}
BOARD_EVENT: dict[str, Any] = {"concurrency_limit": 1, "concurrency_id": "leaderboard"}
# A column header wraps between words only ("rank", never "ra/nk"): gradio sizes each column to its header's
# narrowest layout, which its default word breaking makes one letter wide.
HEADER_CSS = ".header-cell, .header-cell * { word-break: keep-all !important; overflow-wrap: normal !important; }"
MAX_UPLOAD_BYTES = limit_of("upload")  # the app has no upload field; this caps gradio's anonymous upload route
NOTHING_TO_COMPARE = (
    "nothing to compare: set LONGFORM_EVAL_RELEASED (released HelloBench responses: a dataset repo such as "
    "ORG/hellobench, or a folder of model folders) or LONGFORM_EVAL_RUNS (run folders, or "
    "hf://datasets/ORG/NAME[/PATH] entries); locally, --released or --runs"
)
GUIDELINE = """**How to annotate.** Read the instruction and the whole response, then answer each checklist on five
levels: **0** fails the requirement; **0.25** meets some of it, with major gaps; **0.5** meets several parts,
but the overall judgement is unclear; **0.75** meets most of it, with minor issues; **1** fully satisfies it,
with nothing to improve. Finally give the response an **overall score from 0 to 10**. The scores are saved in
the schema that `longform-eval fit-weights` reads, to fit the checklist weights."""


def build_app(arena: Arena) -> BoundedBlocks:
    """The arena's page, served with the bounded queue and stopped promptly (`metric.space_serving`)."""
    groups = ["", *arena.pool.groups()]
    with BoundedBlocks(title="longform-eval arena") as app:
        gr.Markdown(f"{TITLE}\n\n{HOW_TO_VOTE}", elem_id="intro")
        gr.Markdown(skipped_markdown(arena.skipped), elem_id="skipped-runs", visible=bool(arena.skipped))
        with gr.Tab("Arena") as arena_tab:
            with gr.Row():
                group = gr.Dropdown(groups, value="", label="task / type (empty = any)")
                subgroup = gr.Textbox(label="subcategory (optional)", max_length=MAX_FILTER_LENGTH)
                annotator = gr.Textbox(label="your annotator id", value="anonymous", max_length=MAX_ID_LENGTH)
                load = gr.Button("New comparison", elem_id="new-comparison")
            state = gr.State({})
            status = gr.Markdown(elem_id="status")
            prompt = gr.Markdown(max_height=240, elem_id="prompt", line_breaks=True)
            with gr.Row():
                with gr.Column():
                    gr.Markdown("#### Answer A")
                    left = gr.Markdown(max_height=520, elem_id="answer-a", line_breaks=True)
                with gr.Column():
                    gr.Markdown("#### Answer B")
                    right = gr.Markdown(max_height=520, elem_id="answer-b", line_breaks=True)
            with gr.Row():
                buttons = [gr.Button(label, elem_id=f"vote-{VOTES[label]}") for label in VOTES]
            reveal = gr.Markdown(elem_id="reveal")
        # Checklist annotation needs questions with checklists (HelloBench's): hidden without any (pairwise runs)
        with gr.Tab("Annotate", visible=bool(arena.pool.annotatable())) as annotate_tab:
            gr.Markdown(GUIDELINE)
            with gr.Row():
                annotate_group = gr.Dropdown(groups, value="", label="task / type (empty = any)")
                annotate_load = gr.Button("Load a response", elem_id="load-annotation")
            annotate_state = gr.State({})
            annotate_prompt = gr.Markdown(max_height=240, line_breaks=True)
            annotate_response = gr.Markdown(max_height=520, line_breaks=True)
            radios = [gr.Radio(LEVELS, label=f"checklist {i + 1}", visible=False) for i in range(MAX_CHECKLISTS)]
            overall = gr.Slider(0, 10, step=0.5, value=5, label="overall score (0-10)")
            save = gr.Button("Save annotation")
            saved = gr.Markdown()
        with gr.Tab("Leaderboard") as board_tab:
            board = leaderboard_components()
            refresh = gr.Button("Refresh")
        timer = gr.Timer(LEADERBOARD_SECONDS, active=False)
        shown = gr.State(None)  # the vote count the page's leaderboard shows

        pair_outputs = [prompt, left, right, state, status]
        app.load(arena.new_pair, [group, subgroup, state], pair_outputs, api_name="open", **ARENA_EVENT)
        load.click(arena.new_pair, [group, subgroup, state], pair_outputs, api_name="new_pair", **ARENA_EVENT)
        for button, label in zip(buttons, VOTES, strict=True):
            button.click(
                lambda a, s, label=label: arena.vote(label, a, s),
                [annotator, state],
                reveal,
                api_name=f"vote_{VOTES[label]}",
                **ARENA_EVENT,
            )
        refresh.click(arena.leaderboard, None, board, api_name="leaderboard", **BOARD_EVENT)
        timer.tick(arena.board_update, shown, [*board, shown], api_visibility="private", **BOARD_EVENT)
        board_tab.select(
            lambda seen: (*arena.board_update(seen), gr.Timer(active=True)),
            shown,
            [*board, shown, timer],
            api_visibility="private",
            **BOARD_EVENT,
        )
        for tab in (arena_tab, annotate_tab):
            tab.select(lambda: gr.Timer(active=False), None, timer, queue=False, api_visibility="private")
        annotate_load.click(
            arena.annotation_item,
            [annotate_group, annotate_state],
            [annotate_prompt, annotate_response, annotate_state, *radios],
            api_name="annotation_item",
            **ARENA_EVENT,
        )
        save.click(
            arena.save_annotation,
            [annotator, annotate_state, overall, *radios],
            saved,
            api_name="save_annotation",
            **ARENA_EVENT,
        )
    return app


def arena_from_settings(
    runs: Sequence[str | Path] = (),
    released: str | None = None,
    db: str = "votes.sqlite",
    judge: str | None = None,
    source: str | None = None,
    seed: int | None = None,
    dataset: str | None = None,
    votes: VotesRepo | None = None,
    judge_args: dict[str, Any] | None = None,
) -> Arena:
    """The arena over `runs` (folders, or `hf://datasets/ORG/NAME[/PATH]`: downloaded once, read in the cache), its
    votes in `db`, and with `votes` kept in that Hub repo too (restored from it first: see `hub_votes`)."""
    if votes is not None:
        require_token(votes)  # before the responses are downloaded: a missing token is said at once
    hub_names: dict[str, str] = {}
    with noted_skips() as skipped:
        folders = run_folders(fetched(runs, hub_names))
        pool = ResponsePool.load(folders, released, source, dataset)
    arena_judge = None
    if judge:
        from longform_eval.spaces.judging import arena_judge as make_judge

        arena_judge = make_judge(judge, judge_args)
    store = VoteStore(db)
    if votes is not None:
        keep_votes(store, votes)
    return Arena(pool, store, arena_judge, folders, seed, skipped=named(skipped, hub_names))


def fetched(runs: Sequence[str | Path], names: dict[str, str] | None = None) -> list[Path]:
    """Each entry of `runs` as a local path (an `hf://` entry downloaded); one that cannot be fetched (not of the
    form, a repo missing or out of reach) is skipped with a warning naming it, as a bad folder is (`run_folders`).
    `names` gets each downloaded folder's entry, by the folder (the page names a run by its `hf://` entry)."""
    found = []
    for entry in runs:
        try:
            found.append(local_path(entry))
            if names is not None and str(entry) != str(found[-1]):
                names[str(found[-1])] = str(entry)
        except (ValueError, OSError) as error:  # huggingface_hub's errors are OSErrors
            warnings.warn(f"{entry}: run folder skipped ({str(error).removeprefix(f'{entry}: ')})", stacklevel=2)
    return found


def run_paths(value: str | Sequence[str | Path] | None) -> list[str]:
    """`--runs` (a list) or LONGFORM_EVAL_RUNS: entries separated by the path separator (":" on Linux) or new lines;
    an `hf://` path is one entry (its "://" is not a separator)."""
    if not value:
        return []
    if isinstance(value, str):
        separator = rf"{re.escape(os.pathsep)}(?!//)|\n"
        return [part.strip() for part in re.split(separator, value) if part.strip()]
    return [str(part) for part in value]


def main(settings: dict[str, Any] | None = None) -> None:
    settings = settings or {}
    guard_hub_client()  # a deployed Space runs this file, not the CLI: its Hub calls get timeouts and checks too
    runs = run_paths(settings.get("runs") or os.environ.get("LONGFORM_EVAL_RUNS"))
    released = settings.get("released") or os.environ.get("LONGFORM_EVAL_RELEASED", "").strip() or None
    if not (runs or released):
        raise ValueError(NOTHING_TO_COMPARE)
    from longform_eval.spaces.judging import JUDGE_ARGS_VARIABLE, judge_options

    arena = arena_from_settings(
        runs,
        released,
        settings.get("db") or os.environ.get("LONGFORM_EVAL_DB", "votes.sqlite"),
        settings.get("judge") or os.environ.get("LONGFORM_EVAL_JUDGE"),
        settings.get("source"),
        dataset=settings.get("dataset") or os.environ.get("LONGFORM_EVAL_DATASET"),
        votes=votes_repo(os.environ),
        judge_args=settings.get("judge_args") or judge_options(os.environ.get(JUDGE_ARGS_VARIABLE)),
    )
    journal = arena.store.journal if isinstance(arena.store.journal, HubJournal) else None
    app = build_app(arena)
    if journal is not None:  # on SIGTERM (a Space restarting): the last push, before the process exits
        app.on_stop.append(journal.close)
    try:
        launch(app, settings)
    finally:
        if journal is not None:
            journal.close()  # `launch` returned without a signal: what was stored since the last scheduled push


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
    capped at MAX_UPLOAD_BYTES (413 above it), its tables' headers kept whole (HEADER_CSS) and every response sent
    with the page policy (`page_policy`: nothing loaded from another origin). `extra` goes to `gr.Blocks.launch`
    (tests: prevent_thread_lock)."""
    host, port = server_address(settings or {}, os.environ if environ is None else environ)
    app_kwargs = with_page_policy(extra.pop("app_kwargs", None))
    return app.launch(
        server_name=host,
        server_port=port,
        max_file_size=MAX_UPLOAD_BYTES,
        css=HEADER_CSS,
        app_kwargs=app_kwargs,
        **extra,
    )


if __name__ == "__main__":
    try:
        main()
    except ValueError as error:  # a setting refused (a public votes repo, a bad port): one line in the Space's log
        sys.exit(f"longform-eval space: error: {error}")
