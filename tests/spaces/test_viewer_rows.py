"""The sample viewer's data (`spaces/viewer_rows.py`) and its rendering (`spaces/viewer.py`), on real run folders: two
HelloBench chat runs of released models judged with their released verdicts, a LongBench-Write run without a judge,
a judged pairwise run, and a run of hostile answers."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from longform_eval.inference.cli import main
from longform_eval.inference.runner import Run
from longform_eval.spaces.safe_markdown import inert_text
from longform_eval.spaces.viewer import Viewer, answer_markdown, raw_judge, table_rows, verdicts_markdown
from longform_eval.spaces.viewer_rows import (
    ALL,
    ORDERS,
    paired_row,
    read_view_run,
    read_view_runs,
    select_rows,
    unique_names,
)

from .judged_runs import judged_run, questions
from .viewer_runs import LIMIT, MODELS, hellobench_run, hostile_run


@pytest.fixture(scope="module")
def hellobench_runs(shared_data, tmp_path_factory) -> list[Path]:
    root = tmp_path_factory.mktemp("viewer-runs")
    return [hellobench_run(shared_data, root, model) for model in MODELS]


def digest(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.rglob("*")}


def test_hellobench_rows_join_answers_checklist_verdicts_and_row_scores(hellobench_runs):
    before = [digest(folder) for folder in hellobench_runs]
    runs = read_view_runs(hellobench_runs)
    assert [digest(folder) for folder in hellobench_runs] == before  # read-only: nothing written, no lock left
    assert [run.name for run in runs] == [f"replay:{model} · hellobench:chat" for model in MODELS]  # no folder path
    for folder, view in zip(hellobench_runs, runs, strict=True):
        run = Run.open(folder, read_only=True)
        scores = {r["id"]: r["row_score"] for r in json.loads((folder / "scores.json").read_text())["rows"]}
        judgements = run.current_judgements()
        assert view.judge == f"replay:{view.model.removeprefix('replay:')}-judge" and view.score_name == "row_score"
        assert [row.sample_id for row in view.rows] == [row["id"] for row in run.rows] and len(view.rows) == LIMIT
        for row, source in zip(view.rows, run.rows, strict=True):
            assert (row.group, row.subgroup, row.prompt) == ("chat", source["subcategory"], source["instruction"])
            assert row.answer == run.responses()[row.sample_id][0]
            assert row.score == pytest.approx(scores[row.sample_id]) and row.details["words"] > 0
            (verdict,) = row.verdicts
            record = judgements[row.sample_id]
            assert verdict.completion == record.completion and verdict.unscored_reason is None  # the raw judge text
            assert [item.score for item in verdict.checklist] == record.verdict
            assert [item.checklist for item in verdict.checklist] == list(source["checklists"])
            assert [item.weight for item in verdict.checklist] == pytest.approx(list(source["checklist_weights"]))
            assert all(item.reason for item in verdict.checklist)  # the judge's reasons, from its JSON reply
            assert verdict.checklist[0].reason in record.completion


def test_filter_by_task_and_subcategory_search_and_sort(hellobench_runs):
    run = read_view_run(hellobench_runs[0])
    rows = run.rows
    assert run.groups() == ["chat"] and "report_write" in run.subgroups("chat") and run.subgroups("other") == []
    assert select_rows(rows) == list(rows) and select_rows(rows, ALL, ALL) == list(rows)
    narrowed = select_rows(rows, "chat", "report_write")
    assert 0 < len(narrowed) < len(rows) and {row.subgroup for row in narrowed} == {"report_write"}
    assert select_rows(rows, "summarization") == []
    high = select_rows(rows, order=ORDERS[1])
    scores = [row.score for row in high]
    assert scores == sorted(scores, reverse=True) and len(set(scores)) > 1
    assert [row.score for row in select_rows(rows, order=ORDERS[2])] == sorted(scores)
    found = select_rows(rows, query="MANN   whitney")  # any case, every word, anywhere in the row
    assert [row.sample_id for row in found] == [row.sample_id for row in rows if "mann whitney" in row.prompt.lower()]
    assert found and select_rows(rows, query="mann zebra-quokka") == []
    judge_word = rows[0].verdicts[0].checklist[0].reason.split()[-1]
    assert rows[0] in select_rows(rows, query=judge_word)  # the judge's text is searched too
    with pytest.raises(ValueError, match="order must be one of"):
        select_rows(rows, order="random")


def test_two_runs_pair_on_the_same_prompt(hellobench_runs, zh_runs):
    a, b = read_view_runs(hellobench_runs)
    for row in a.rows:
        other = paired_row(row, a, b)
        assert other is not None and other.prompt == row.prompt and other.answer != row.answer
        assert other.verdicts[0].completion != row.verdicts[0].completion
    (zh,) = read_view_runs(zh_runs[:1])
    assert paired_row(a.rows[0], a, zh) is None  # another benchmark: no pair
    table = table_rows(select_rows(a.rows, subgroup="report_write"), a, b)
    assert [cells[2] for cells in table] == ["report_write"] * len(table) and all(cells[4] != "" for cells in table)


def test_runs_of_other_benchmarks_show_what_they_have(zh_runs, tmp_path):
    """LongBench-Write imported without a judge: prompt and answer, no verdict, no score; a judged pairwise run: the
    raw judge completions of both orders and the row's outcome as its score."""
    writer = read_view_run(zh_runs[0])
    assert writer.judge is None and writer.score_name is None and writer.benchmark == "longbench_write:all"
    answered = [row for row in writer.rows if row.answer is not None]
    assert len(answered) == 3 and all("的回答" in row.answer for row in answered)  # the 3 answers imported
    assert all(row.prompt and row.verdicts == () and row.score is None for row in writer.rows)
    assert verdicts_markdown(answered[0]) == "*(not judged)*" and raw_judge(answered[0]) == ""
    unanswered = next(row for row in writer.rows if row.answer is None)
    assert answer_markdown(unanswered) == "*(no answer generated yet)*"
    folder, _ = judged_run(tmp_path / "pairwise", questions(), lambda i: "A" if i % 2 else "B")
    pairwise = read_view_run(folder)
    assert pairwise.score_name == "win" and pairwise.judge and "/" not in pairwise.model
    judged = [row for row in pairwise.rows if row.verdicts]
    assert judged and all(len(row.verdicts) == 2 and row.score in (0.0, 0.5, 1.0) for row in judged)
    assert all("outcome" in row.details for row in judged)
    assert all(v.completion.startswith("Verdict: ") and not v.checklist for row in judged for v in row.verdicts)
    assert "judge call" in verdicts_markdown(judged[0]) and "Verdict: " in raw_judge(judged[0])


def test_hostile_answers_render_inert(shared_data, hellobench_runs, tmp_path):
    hostile = read_view_run(hostile_run(shared_data, tmp_path))
    shown = answer_markdown(hostile.rows[0])
    assert "<script>" not in shown and "<img" not in shown and "javascript:" not in shown
    assert "&lt;script&gt;" in shown and "**bold stays bold**" in shown and "(https://example.org)" in shown
    assert "<" not in verdicts_markdown(hostile.rows[0])


def test_viewer_refresh_filters_and_keeps_the_row_shown(hellobench_runs):
    a, b = read_view_runs(hellobench_runs)
    viewer = Viewer([a, b])
    outputs = viewer.refresh(a.name, b.name, ALL, "report_write", ORDERS[1], "", None)
    _, _, table, count, _, ids, prompt, *_ = outputs
    assert count.startswith(f"{len(ids)} of {LIMIT} rows") and len(table) == len(ids) < LIMIT
    assert inert_text(ids[0]) in prompt and outputs[11].visible  # the side-by-side column
    again = viewer.refresh(a.name, "(none)", ALL, ALL, ORDERS[0], "", ids[-1])
    assert again[5] == [row.sample_id for row in a.rows] and inert_text(ids[-1]) in again[6] and not again[11].visible


def test_runs_of_one_model_get_names_of_their_own_and_view_refuses_no_runs(hellobench_runs, tmp_path, capsys):
    run = read_view_run(hellobench_runs[0])
    assert [r.name for r in unique_names([run, run])] == [run.name, f"{run.name} (2)"]
    with pytest.warns(UserWarning, match="no such run folder; skipped"):
        assert main(["view", str(tmp_path / "nothing")]) == 2
    assert "no readable run folder" in capsys.readouterr().err
