"""scores.json documents for tests of the hooks that take a `RunScores`: a run's own fields around given figures."""

from __future__ import annotations

from typing import Any

from longform_eval.inference.benchmarks.run_scores import RunScores
from longform_eval.inference.benchmarks.scores_json import run_scores

RUN_FIELDS = {
    "model": "m",
    "judge": None,
    "n_samples": 0,
    "n_generated": 0,
    "n_truncated_generations": 0,
    "n_pending_generations": 0,
    "n_pending_judge_calls": 0,
    "complete": True,
    "deviations": [],
}
HELLOBENCH_FIGURES = {
    "overall": None,
    "tasks": {},
    "subcategories": {},
    "n_scored": 0,
    "n_unscored": 0,
    "unscored_reasons": {},
    "mean_word_count": None,
}
LONGBENCH_WRITE_FIGURES = {
    "s_l": None,
    "s_q": None,
    "s": None,
    "n_items": 0,
    "n_judged": 0,
    "n_scored": 0,
    "n_unscored": 0,
    "unscored_reasons": {},
    "dimensions": {},
}
LONGGENBENCH_FIGURES = {
    "cr": None,
    "stic1": None,
    "stic2": None,
    "wavg": None,
    "length": None,
    "n_items": 1,
    "n_checks": 0,
    "n_judged": 0,
    "n_yes": 0,
    "n_unscored": 0,
}
PAIRWISE_FIGURES = {
    "baseline": "B",
    "mode": "single",
    "n_items": 0,
    "n_no_baseline": 0,
    "n_scored": 0,
    "n_unscored": 0,
    "unscored_reasons": {},
    "overall": {"n": 0, "n_unscored": 0},
    "groups": {},
}


def scores_with(benchmark: str, config: str, figures: dict[str, Any]) -> RunScores:
    """A RunScores of `benchmark:config` holding `figures` (checked against its layout as any scores.json is)."""
    return run_scores({"benchmark": benchmark, "config": config, **RUN_FIELDS, **figures})
