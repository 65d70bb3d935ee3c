"""The results table of a repo of runs: `results.jsonl` at its root, one row per run the repo holds, declared as the
repo's default dataset config (`results`), so that `load_dataset("ORG/NAME")` gives one row per run.

`push-run` rewrites it whole on every push, from the runs the repo holds (their config.yaml, scores.json and
timings.json, read from the repo) and the run it pushes: a run pushed to another folder adds a row, the same run
pushed again replaces its own. Like the cards it is a function of the runs alone (no push date), so pushing an
unchanged run changes nothing. JSON Lines, as the record logs are: datasets 5.2 loads one file format per repo.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from typing import Any

from longform_eval.common.bounded_json import loads_json

from ..backends.local import GGUF_SHA256
from ..backends.local import MODELS as LOCAL_MODELS
from ..report.markdown import benchmark_of
from ..runner.config import RunConfig
from .run_info import RunInfo

RESULTS_FILE = "results.jsonl"
RESULTS_CONFIG = "results"
SPLIT = "test"
FIELDS = (
    "run_path",  # the run's folder in the repo; "" for its root
    "benchmark",
    "config",  # the benchmark's config
    "model",
    "model_revision",  # what config.yaml pins of the weights (a file hash); None when it pins nothing
    "judge",
    "figure",  # the headline figure's name in scores.json
    "score",  # its value as scores.json holds it (a pairwise win rate as a fraction)
    "low",  # its 95% interval, and the units it rests on
    "high",
    "n",
    "scale",  # the headline's scale, as the report prints it
    "headline",  # the headline as the report prints it: the figure [its interval]
    "interval_method",
    "date",  # the day (UTC) the run's latest command started, from timings.json
    "package_version",  # the longform-eval version that made the run
)
OURS = {"run_path", "benchmark", "figure", "headline", "interval_method"}  # a table push-run wrote has these
DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


def results_config() -> dict[str, Any]:
    """The dataset config of the table, the repo's default: `load_dataset("ORG/NAME")` reads it."""
    return {"config_name": RESULTS_CONFIG, "data_files": [{"split": SPLIT, "path": RESULTS_FILE}], "default": True}


def results_table(runs: Sequence[RunInfo]) -> bytes:
    """The table's file: one JSON line per run, by folder."""
    rows = [result_row(run) for run in sorted(runs, key=lambda run: run.path)]
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows).encode("utf-8")


def result_row(run: RunInfo) -> dict[str, Any]:
    config = RunConfig.model_validate(run.config)
    benchmark = benchmark_of(run.scores)
    figure = benchmark.headline_of(list(run.scores.intervals))
    interval = run.scores.intervals.get(figure) if figure else None
    headline, scale, _ = run.headline()
    row = {
        "run_path": run.path,
        "benchmark": run.scores.benchmark,
        "config": run.scores.config,
        "model": run.scores.model,
        "model_revision": model_revision(config),
        "judge": run.scores.judge,
        "figure": figure,
        "score": number(benchmark.figure_value(run.scores.figures, figure) if figure else None),
        "low": number(interval.low) if interval else None,
        "high": number(interval.high) if interval else None,
        "n": interval.n if interval else None,
        "scale": scale,
        "headline": headline,
        "interval_method": run.scores.interval_method if "interval_method" in run.scores.model_fields_set else None,
        "date": run.date,
        "package_version": config.package_version or None,
    }
    return {name: row[name] for name in FIELDS}


def model_revision(config: RunConfig) -> str | None:
    """What config.yaml pins of the model's weights. Only the embedded model's file is known by its name (the local
    backend checks its SHA-256 before use); config.yaml records no revision or hash of a Hub model, a local folder,
    an API model or a replay file."""
    spec = config.model
    if spec is not None and spec.backend == "local" and spec.model in LOCAL_MODELS:
        return f"sha256:{GGUF_SHA256}"
    return None


def number(value: Any) -> float | None:
    """A figure as a float (JSON null for none or NaN), so that the column has one type in every row."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
        return None
    return float(value)


def run_date(timings: str | None) -> str | None:
    """The day the run's latest command started (timings.json's last invocation); None when not recorded or not
    readable (the table is not worth refusing a push for)."""
    try:
        started = loads_json(timings or "")["invocations"][-1]["started"]
    except (ValueError, LookupError, TypeError):
        return None
    return started[:10] if isinstance(started, str) and DAY.match(started) else None


def is_our_table(text: str) -> bool:
    """Whether `results.jsonl` as found is one push-run wrote (so it may be rewritten): every line a row of ours."""
    lines = [line for line in text.splitlines() if line.strip()]
    try:
        rows = [loads_json(line) for line in lines]
    except ValueError:
        return False
    return bool(rows) and all(isinstance(row, dict) and set(row) >= OURS for row in rows)


def results_section(repo_id: str, scores_config: str) -> list[str]:
    """The root card's section on the table, with code that loads it (and one run's scores.json)."""
    return [
        "## Results table",
        "",
        f"`{RESULTS_FILE}` holds one row per run in this repo (rewritten by every `push-run`): "
        f"{', '.join(f'`{name}`' for name in FIELDS)}. `score` is the headline figure as `scores.json` holds it, "
        "`low` and `high` its 95% interval over `n` units, `headline` the figure as the report prints it. It is this "
        f"dataset's default config (`{RESULTS_CONFIG}`); each run's `scores.json` is a config of its own "
        f"(`{scores_config}` for one), and so are its record logs. They load with `datasets` (`pip install datasets`; "
        "`date` loads as a timestamp):",
        "",
        "```python",
        "from datasets import load_dataset",
        "",
        f'results = load_dataset("{repo_id}", split="{SPLIT}")  # the default config: one row per run',
        "for row in results:",
        '    print(row["run_path"] or "(root)", row["model"], row["score"], [row["low"], row["high"]], row["n"])',
        f'scores = load_dataset("{repo_id}", "{scores_config}", split="{SPLIT}")[0]  # one run\'s scores.json',
        'print(scores["benchmark"], scores["interval_method"])',
        "```",
    ]


__all__ = [
    "FIELDS",
    "RESULTS_CONFIG",
    "RESULTS_FILE",
    "is_our_table",
    "result_row",
    "results_config",
    "results_section",
    "results_table",
    "run_date",
]
