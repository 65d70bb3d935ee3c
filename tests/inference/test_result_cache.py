"""Comparisons and rank ranges cached by the scores.json contents they come from (`report.result_cache`)."""

from __future__ import annotations

import json

from scores_documents import LONGBENCH_WRITE_FIGURES, scores_with

from longform_eval.inference.report.result_cache import cached, scores_digest


def test_a_value_is_computed_once_per_key_and_a_damaged_entry_again(tmp_path, monkeypatch):
    monkeypatch.setenv("LONGFORM_EVAL_CACHE", str(tmp_path / "cache"))
    calls = []

    def compute():
        calls.append(1)
        return [{"a": None, "difference": 0.1 + 0.2, "low": -1.5e-17}]

    first = cached("comparison", ["m", "x", "y"], compute)
    assert cached("comparison", ["m", "x", "y"], compute) == first and len(calls) == 1  # floats as computed
    assert cached("comparison", ["m", "x", "z"], compute) == first and len(calls) == 2  # another run: computed
    entries = sorted((tmp_path / "cache/results/comparison").iterdir())
    assert len(entries) == 2
    for entry in entries:
        entry.write_text('{"value": [')  # damaged (a killed writer cannot leave this: entries are written whole)
    assert cached("comparison", ["m", "x", "y"], compute) == first and len(calls) == 3  # computed again
    assert sum(1 for entry in entries if entry.read_text() == json.dumps({"value": first}) + "\n") == 1  # kept again
    assert cached("comparison", None, compute) == first and len(calls) == 4  # not cacheable: always computed


def test_runs_scored_with_several_judge_samples_are_not_cached():
    figures = LONGBENCH_WRITE_FIGURES
    assert scores_digest(scores_with("longbench_write", "all", figures | {"judge_samples": 3})) is None
    one = scores_digest(scores_with("longbench_write", "all", figures | {"b": 1, "a": 2}))
    same = scores_digest(scores_with("longbench_write", "all", figures | {"a": 2, "b": 1}))
    other = scores_digest(scores_with("longbench_write", "all", figures | {"a": 2, "b": 1.5}))
    assert one == same and len(one) == 64 and other != one
