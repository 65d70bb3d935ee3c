"""The sample viewer: `longform-eval view RUN [RUN ...]`, a local Gradio page to read a run's answers beside their
verdicts, and two runs side by side on the same prompt.

The rows (filter by task and subcategory, free-text search, sort by score) come from `viewer_rows`; this module only
lays them out. Model answers, prompts and judge text are untrusted: they reach a markdown component through
`safe_markdown` (HTML and images shown as text, unsafe links disarmed), the raw judge completions a plain text box,
and table cells and choices as plain text (gradio shows those through the browser's textContent).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import gradio as gr

from longform_eval.common.plurals import counted
from longform_eval.metric.space_serving import BoundedBlocks

from .fields import MAX_SEARCH_LENGTH, FieldError, check_text
from .safe_markdown import inert_markdown, inert_text
from .skipped import named, noted_skips, skipped_markdown
from .viewer_rows import ALL, ORDERS, ViewRow, ViewRun, paired_row, read_view_runs, select_rows

TITLE = "# longform-eval view: answers and their verdicts"
NONE = "(none)"
TABLE_HEADERS = ["sample id", "task", "subcategory", "score", "score B", "prompt"]
COLUMN_WIDTHS = ["12%", "10%", "16%", "8%", "8%", "46%"]
PREVIEW_CHARS = 120
NO_RUNS = "no readable run folder among {}: give run folders (or folders of run folders, or hf://datasets/ORG/NAME)"


def preview(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= PREVIEW_CHARS else flat[: PREVIEW_CHARS - 1] + "…"


def score_text(score: float | None) -> str:
    return "-" if score is None else f"{score:.2f}"


def table_rows(rows: Sequence[ViewRow], run: ViewRun, other: ViewRun | None) -> list[list[str]]:
    """The row list: plain-text cells (gradio shows "str" cells as text, so nothing is escaped here)."""
    found = []
    for row in rows:
        paired = paired_row(row, run, other) if other is not None else None
        side = score_text(paired.score) if paired is not None else ""
        found.append([row.sample_id, row.group, row.subgroup, score_text(row.score), side, preview(row.prompt)])
    return found


def run_heading(run: ViewRun, row: ViewRow | None) -> str:
    """The run's name, judge and the row's score, each shown as it is (`inert_text`)."""
    lines = [f"### {inert_text(run.name)}", f"judge: {inert_text(run.judge or 'none')}"]
    if row is not None:
        figure = f" ({inert_text(run.score_name)})" if run.score_name else ""
        lines.append(f"**row score{figure}: {inert_text(score_text(row.score))}**")
        details = [f"{k} {v}" for k, v in row.details.items() if k != run.score_name and not isinstance(v, dict | list)]
        if details:
            lines.append(inert_text(" · ".join(details)))
    return "\n\n".join(lines)


def answer_markdown(row: ViewRow | None) -> str:
    if row is None:
        return "*(this run has no row on this prompt)*"
    if row.answer is None:
        return "*(no answer generated yet)*"
    return inert_markdown(row.answer)


def verdicts_markdown(row: ViewRow | None) -> str:
    """The judge's verdicts: checklist by checklist (weight, score, reason) where the row has checklists, else each
    judge call's parsed verdict or why it is unscored."""
    if row is None:
        return ""
    if not row.verdicts:
        return "*(not judged)*"
    parts = []
    for verdict in row.verdicts:
        title = f"**judge call {inert_text(verdict.key)}**"
        if verdict.unscored_reason is not None:
            parts.append(f"{title}: unscored ({inert_text(verdict.unscored_reason)})")
        elif verdict.checklist:
            parts.append(title)
            for item in verdict.checklist:
                weight = "" if item.weight is None else f" (weight {item.weight:.1f})"
                lines = [f"**checklist {item.number}: score {inert_text(score_text(item.score))}**{weight}"]
                lines.append(inert_text(item.checklist))
                if item.reason:
                    lines.append(f"> judge: {inert_text(item.reason)}")
                parts.append("\n\n".join(lines))
        else:
            shown = json.dumps(verdict.verdict, ensure_ascii=False, default=str)
            parts.append(f"{title}: verdict {inert_text(shown)}")
    return "\n\n".join(parts)


def raw_judge(row: ViewRow | None) -> str:
    """The raw judge completions (plain text), one after another when the row had several judge calls."""
    if row is None or not row.verdicts:
        return ""
    if len(row.verdicts) == 1:
        return row.verdicts[0].completion
    return "\n\n".join(f"── {v.key} ──\n{v.completion}" for v in row.verdicts)


def side(run: ViewRun | None, row: ViewRow | None) -> list[Any]:
    """One column of the detail: heading, answer, verdicts, raw judge text."""
    if run is None:
        return ["", "", "", ""]
    return [run_heading(run, row), answer_markdown(row), verdicts_markdown(row), raw_judge(row)]


def prompt_markdown(row: ViewRow | None) -> str:
    if row is None:
        return "*(no row matches)*"
    where = " / ".join(part for part in (row.group, row.subgroup) if part)
    heading = f"**{inert_text(row.sample_id)}**" + (f" · {inert_text(where)}" if where else "")
    return f"{heading}\n\n{inert_markdown(row.prompt)}"


class Viewer:
    """The viewer's callbacks over `runs` (read once, at start)."""

    def __init__(self, runs: Sequence[ViewRun]):
        if not runs:
            raise ValueError("the viewer needs at least one run")
        self.runs = {run.name: run for run in runs}
        self.names = list(self.runs)

    def run(self, name: str | None) -> ViewRun:
        return self.runs.get(name or "", self.runs[self.names[0]])

    def other(self, name: str | None) -> ViewRun | None:
        return self.runs.get(name or "") if name and name != NONE else None

    def detail(self, run_name: str | None, other_name: str | None, sample_id: str | None) -> list[Any]:
        run, other = self.run(run_name), self.other(other_name)
        row = run.row(sample_id or "")
        paired = paired_row(row, run, other) if row is not None and other is not None else None
        return [prompt_markdown(row), *side(run, row), gr.Column(visible=other is not None), *side(other, paired)]

    def refresh(
        self, run_name: str | None, other_name: str | None, group: str, subgroup: str, order: str, query: str, current
    ) -> list[Any]:
        """The filters' choices, the row list and the detail of the row shown (kept while it still matches); a search
        over its ceiling is refused before any row is read."""
        try:
            check_text(query or "", "search", MAX_SEARCH_LENGTH)
        except FieldError as error:
            raise gr.Error(str(error), print_exception=False) from None
        run, other = self.run(run_name), self.other(other_name)
        groups = [ALL, *run.groups()]
        group = group if group in groups else ALL
        subgroups = [ALL, *run.subgroups(None if group == ALL else group)]
        subgroup = subgroup if subgroup in subgroups else ALL
        rows = select_rows(run.rows, group, subgroup, query or "", order if order in ORDERS else ORDERS[0])
        ids = [row.sample_id for row in rows]
        shown = current if current in ids else (ids[0] if ids else None)
        count = f"{len(rows)} of {counted(len(run.rows), 'row')} of {inert_text(run.name)}"
        return [
            gr.Dropdown(choices=groups, value=group),
            gr.Dropdown(choices=subgroups, value=subgroup),
            table_rows(rows, run, other),
            count,
            gr.Dropdown(choices=ids, value=shown),
            ids,
            *self.detail(run.name, other_name, shown),
        ]

    def pick(self, run_name: str | None, other_name: str | None, ids: list[str], event: gr.SelectData) -> list[Any]:
        """A click on the row list shows that row."""
        index = event.index[0] if isinstance(event.index, list | tuple) else event.index
        sample_id = ids[index] if isinstance(index, int) and 0 <= index < len(ids) else None
        return [gr.Dropdown(value=sample_id), *self.detail(run_name, other_name, sample_id)]


def summary(runs: Sequence[ViewRun]) -> str:
    lines = [f"{counted(len(runs), 'run')} (read-only):", ""]
    for run in runs:
        scored = sum(row.score is not None for row in run.rows)
        answered = sum(row.answer is not None for row in run.rows)
        judge = run.judge or "no judge"
        lines.append(
            f"- {inert_text(run.name)}: judge {inert_text(judge)}; {counted(len(run.rows), 'row')}, "
            f"{answered} answered, {scored} scored"
        )
    return "\n".join(lines)


def detail_column(suffix: str) -> list[gr.components.Component]:
    return [
        gr.Markdown(elem_id=f"run-head-{suffix}"),
        gr.Markdown(max_height=520, elem_id=f"answer-{suffix}", line_breaks=True, label="answer"),
        gr.Markdown(elem_id=f"verdicts-{suffix}"),
        gr.Textbox(label="raw judge completion", lines=6, max_lines=16, interactive=False, elem_id=f"judge-{suffix}"),
    ]


def build_viewer(runs: Sequence[ViewRun], skipped: Sequence[str] = ()) -> BoundedBlocks:
    """The viewer's page over `runs`; `skipped`: the runs it could not read, named with their reasons."""
    viewer = Viewer(runs)
    names = viewer.names
    with BoundedBlocks(title="longform-eval view") as app:
        gr.Markdown(f"{TITLE}\n\n{summary(runs)}\n\n{skipped_markdown(skipped)}", elem_id="viewer-summary")
        with gr.Row():
            run_a = gr.Dropdown(names, value=names[0], label="run", elem_id="run-a")
            run_b = gr.Dropdown([NONE, *names], value=NONE, label="side by side with", elem_id="run-b")
        with gr.Row():
            group = gr.Dropdown([ALL], value=ALL, label="task", elem_id="filter-task")
            subgroup = gr.Dropdown([ALL], value=ALL, label="subcategory", elem_id="filter-subcategory")
            order = gr.Dropdown(list(ORDERS), value=ORDERS[0], label="sort", elem_id="sort")
            query = gr.Textbox(
                label="search (prompt, answer, judge text)", elem_id="search", max_length=MAX_SEARCH_LENGTH
            )
        count = gr.Markdown(elem_id="rows-count")
        table = gr.Dataframe(
            headers=TABLE_HEADERS,
            datatype=["str"] * len(TABLE_HEADERS),
            interactive=False,
            wrap=True,
            column_widths=COLUMN_WIDTHS,
            max_height=360,
            elem_id="rows-table",
        )
        row = gr.Dropdown([], label="row", elem_id="row-choice")
        ids = gr.State([])
        prompt = gr.Markdown(max_height=240, elem_id="row-prompt", line_breaks=True)
        with gr.Row():
            with gr.Column():
                left = detail_column("a")
            with gr.Column(visible=False) as column_b:
                right = detail_column("b")
        detail = [prompt, *left, column_b, *right]
        filters = [run_a, run_b, group, subgroup, order, query, row]
        outputs = [group, subgroup, table, count, row, ids, *detail]
        for component in (run_a, run_b, group, subgroup, order):
            component.input(viewer.refresh, filters, outputs)
        query.input(viewer.refresh, filters, outputs)  # as the user types (the last keystroke wins)
        row.input(viewer.detail, [run_a, run_b, row], detail)
        table.select(viewer.pick, [run_a, run_b, ids], [row, *detail])
        app.load(viewer.refresh, filters, outputs)
    return app


def main(settings: dict[str, Any]) -> None:
    """Read the runs of `settings["runs"]` (folders, or `hf://datasets/ORG/NAME[/PATH]`) and serve the viewer at
    `settings["host"]` / `settings["port"]` (else as the Space: GRADIO_SERVER_*, then 127.0.0.1)."""
    from .app import fetched, launch

    entries = [str(entry) for entry in settings.get("runs") or ()]
    hub_names: dict[str, str] = {}
    with noted_skips() as skipped:
        runs = read_view_runs(fetched(entries, hub_names))
    if not runs:
        raise ValueError(NO_RUNS.format(", ".join(entries) or "(none given)"))
    launch(build_viewer(runs, named(skipped, hub_names)), settings)
