"""Run folders and label files for the `calibrate` tests: a pairwise run's scores.json as `score` writes it (the
fields `report` checks), from a simulated judge."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from longform_eval.inference.config import GenerationConfig
from longform_eval.inference.runner import RunConfig

MODEL, BASELINE = "verbose-model", "reference answers (tencentllmeval:en)"
STYLES = {"tokens": 1, "headers": 0, "lists": 0, "bold": 0}


def header(benchmark: str, config: str, n: int) -> dict:
    return {
        "benchmark": benchmark,
        "config": config,
        "model": MODEL,
        "judge": "sim:length-biased",
        "n_samples": n,
        "n_generated": n,
        "n_truncated_generations": 0,
        "n_pending_generations": 0,
        "n_pending_judge_calls": 0,
        "complete": True,
        "deviations": [],
    }


def write_run_config(folder: Path, benchmark: str, config: str) -> None:
    """config.yaml, as `run` writes it: what makes the folder a run folder (`calibrate` writes only into one)."""
    settings = RunConfig(
        benchmark=benchmark, benchmark_config=config, generation=GenerationConfig(), judge_generation=GenerationConfig()
    )
    (folder / "config.yaml").write_text(yaml.safe_dump(settings.model_dump(mode="json")), encoding="utf-8")


def pairwise_run(folder: Path, outcomes: dict[str, str]) -> Path:
    """A tencentllmeval:en run of MODEL against the reference answers with these judged outcomes."""
    folder.mkdir(parents=True, exist_ok=True)
    battles = [{"id": i, "outcome": o, "chars": [20, 10], "styles": [STYLES, STYLES]} for i, o in outcomes.items()]
    n = len(outcomes)
    scores = header("tencentllmeval", "en", n) | {
        "baseline": BASELINE,
        "mode": "pairwise",
        "n_items": n,
        "n_no_baseline": 0,
        "n_scored": n,
        "n_unscored": 0,
        "unscored_reasons": {},
        "overall": {"n": n, "n_unscored": 0},
        "groups": {},
        "battles": battles,
    }
    (folder / "scores.json").write_text(json.dumps(scores), encoding="utf-8")
    write_run_config(folder, "tencentllmeval", "en")
    return folder


def hellobench_run(folder: Path, rows: list[dict]) -> Path:
    """A hellobench:all run of MODEL whose rows are `rows` ({id, subcategory, row_score})."""
    folder.mkdir(parents=True, exist_ok=True)
    n = len(rows)
    scores = header("hellobench", "all", n) | {
        "overall": 0.0,
        "tasks": {},
        "subcategories": {},
        "n_scored": n,
        "n_unscored": 0,
        "unscored_reasons": {},
        "mean_word_count": None,
        "rows": [row | {"words": 100} for row in rows],
    }
    (folder / "scores.json").write_text(json.dumps(scores), encoding="utf-8")
    write_run_config(folder, "hellobench", "all")
    return folder


def write_jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def vote_lines(human: dict[str, str], swap_every: int = 2) -> list[dict]:
    """One label per item; every `swap_every`-th shown with the baseline as A (its outcome turned round)."""
    turned = {"A": "B", "B": "A"}
    records = []
    for index, (item, outcome) in enumerate(human.items()):
        if index % swap_every:
            records.append(
                {"item_id": item, "model_a": BASELINE, "model_b": MODEL, "outcome": turned.get(outcome, outcome)}
            )
        else:
            records.append(
                {"item_id": f"tencentllmeval:en/{item}", "model_a": MODEL, "model_b": BASELINE, "outcome": outcome}
            )
    return records
