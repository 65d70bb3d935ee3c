"""Runs that belong together land in one table, and its ranks rest on the prompts its scores show (issue 44).

Five HelloBench chat runs (all 147 prompts), each judged by replaying GPT-4o's released verdicts from a replay file of
its own, every judge given `--judge-name gpt-4o`: three `run`s of released answers (one at judge temperature 0.2,
which replayed verdicts do not use, one whose replay file garbles 20 verdicts, so 20 rows are unscored) and two
imports (`import-generations` + `judge`, selection `{}`). One table; its rank ranges are the ones `le.compare`'s
pairs imply; each row shows the figure its rank rests on; the prompts left out are named.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

import longform_eval as le
from longform_eval.inference.cli import main
from longform_eval.inference.report.comparability import comparability, normalized_selection, separation_reason
from longform_eval.inference.runner.config import RunConfig

from .conftest import released, write_replay

GARBLED = 20


def verdicts(shared_data: Path, model: str, garble: int = 0):
    """(id, the judge's JSON reply) of `model`'s released verdicts; the first `garble` chat ones unparseable."""
    garbled = 0
    for record in released(shared_data, "judgements", model):
        text = json.dumps(record["checklist_wise_evaluation"], ensure_ascii=False)
        if record["id"].startswith("chat") and garbled < garble:
            garbled, text = garbled + 1, "no verdict here"
        yield record["id"], text


def chat_ids(shared_data: Path) -> list[str]:
    return [r["id"] for r in released(shared_data, "generations", "gpt4o_0806") if r["id"].startswith("chat")]


def quiet(argv: list[str]) -> int:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return main(argv)


@pytest.fixture(scope="module")
def runs(shared_data, tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("one_table")
    found = {}
    plans = {
        "gpt4o_0806": ("gpt4o_0806", 0, ()),
        "llama31_8b": ("llama31_8b", 0, ("--judge-temperature", "0.2")),
        "qwen2_7b": ("qwen2_7b", GARBLED, ()),
    }
    for name, (model, garble, extra) in plans.items():
        answers = write_replay(
            folder / f"answers_{name}.jsonl",
            ((r["id"], r["response"]) for r in released(shared_data, "generations", model)),
        )
        judge = write_replay(folder / f"verdicts_{name}.jsonl", verdicts(shared_data, model, garble))
        out = folder / name
        argv = ["run", "--benchmark", "hellobench:chat", "--model", f"replay:{answers}", "--judge", f"replay:{judge}"]
        argv += ["--judge-name", "gpt-4o", "--name", name, "--judge-attempts", "1", "--out", str(out), *extra]
        assert quiet(argv) == 0
        found[name] = out
    for model in ("gpt4o_0806", "llama31_8b"):
        out = folder / f"imported_{model}"
        generations = shared_data / "hellobench/generations/main_exp" / model
        argv = ["import-generations", str(generations), "--out", str(out), "--benchmark", "hellobench:chat"]
        assert quiet([*argv, "--name", f"{model} (released answers)"]) == 0
        judge = write_replay(folder / f"verdicts_imported_{model}.jsonl", verdicts(shared_data, model))
        assert quiet(["judge", str(out), "--judge", f"replay:{judge}", "--judge-name", "gpt-4o"]) == 0
        assert quiet(["score", str(out)]) == 0
        found[f"imported_{model}"] = out
    return found


def test_runs_that_share_a_judge_by_name_share_one_table(runs):
    board = le.leaderboard(list(runs.values()))
    assert len(board.tables) == 1, [table.reason for table in board.tables]
    assert len(board.tables[0].rows) == len(runs)
    assert "1 table\n" in repr(board)


def test_ranks_agree_with_the_pairs_compare_prints(runs):
    board = le.leaderboard(list(runs.values()))
    (table,) = board.tables
    pairs = [pair for pair in le.compare(list(runs.values())).pairs if pair.figure == table.figure]
    assert len(pairs) == len(runs) * (len(runs) - 1) // 2
    rows = {str(Path(row.run)): row for row in table.rows}
    for row in table.rows:
        mine = str(Path(row.run))
        above = sum(1 for p in pairs if p.distinguishable and mine in (p.a, p.b) and signed(p, mine) < 0)
        below = sum(1 for p in pairs if p.distinguishable and mine in (p.a, p.b) and signed(p, mine) > 0)
        assert row.rank_low == min(1 + above, row.rank) and row.rank_high == max(len(rows) - below, row.rank)
    for pair in pairs:  # the figure beside each rank is the one the pairs are differences of
        found = rows[str(Path(pair.a))].shared_score - rows[str(Path(pair.b))].shared_score
        assert found == pytest.approx(pair.difference, abs=1e-9)
        assert pair.units == table.n_shared


def signed(pair, run: str) -> float:
    """The difference as `run` minus the other run."""
    return pair.difference if pair.a == run else -pair.difference


def test_the_table_states_the_prompts_it_ranks_on(runs, shared_data):
    (table,) = le.leaderboard(list(runs.values())).tables
    total = len(chat_ids(shared_data))
    assert table.n_shared == total - GARBLED
    assert table.prompts == (
        f"compared on the {total - GARBLED} prompts all 5 runs scored; {GARBLED} left out of every run's figure here "
        f"({GARBLED} unscored or missing in {runs['qwen2_7b']})"
    )
    own = {Path(row.run).name: row for row in table.rows}
    assert own["qwen2_7b"].dropped == GARBLED and own["gpt4o_0806"].dropped == 0
    assert own["gpt4o_0806"].score != pytest.approx(own["gpt4o_0806"].shared_score, abs=1e-6)  # own: all 147


def test_imported_selection_and_explicit_defaults_are_one():
    assert normalized_selection({}) == normalized_selection(
        {"limit": None, "per_group": None, "groups": [], "shortest": False}
    )
    assert normalized_selection({"limit": 5}) != normalized_selection({})


def config(**fields) -> RunConfig:
    base = {
        "benchmark": "hellobench",
        "benchmark_config": "chat",
        "generation": {},
        "judge_generation": {"temperature": 0.8},
        "judge": {"backend": "openai", "model": "gpt-4o"},
    }
    return RunConfig.model_validate(base | fields)


def test_a_sampled_judge_at_another_temperature_is_another_table_and_the_reason_is_whole():
    first = comparability(config(), "hellobench:chat")
    other = comparability(
        config(judge_generation={"temperature": 0.2}, selection={"groups": ["x" * 80]}), "hellobench:chat"
    )
    reason = separation_reason(other, first)
    assert "other prompt selection (groups " + json.dumps(["x" * 80]) + ", not none)" in reason
    assert '"temperature": 0.2' in reason and '"temperature": 0.8' in reason  # whole, not cut


def test_the_judge_is_known_by_its_name_else_by_its_model():
    named = [config(judge={"backend": "replay", "model": f"v{i}.jsonl"}, judge_name="gpt-4o") for i in range(2)]
    assert comparability(named[0], "c").key == comparability(named[1], "c").key
    unnamed = [config(judge={"backend": "replay", "model": f"v{i}.jsonl"}) for i in range(2)]
    assert "other judge" in separation_reason(comparability(unnamed[1], "c"), comparability(unnamed[0], "c"))


def test_the_markdown_shows_the_shared_figure_beside_the_rank_and_says_what_it_rests_on(runs, tmp_path):
    board = le.leaderboard(list(runs.values()), out=tmp_path / "board")
    markdown = (tmp_path / "board" / "leaderboard.md").read_text()
    assert "| rank | rank range | overall, shared | model |" in markdown
    (table,) = board.tables
    assert f"Ranks and the shared figure: {table.prompts}." in markdown
    for row in table.rows:
        assert f"| {row.shared_score:.2f} | {row.model}" in markdown.replace("\\(", "(").replace("\\)", ")")
