"""How far a judge agrees with the released GPT-4o HelloBench verdicts, on GPT-4o's own released responses.

The judge (default: the embedded `local:default`, judging as the main job does: constrained to the verdict JSON
schema, 640 new tokens, one attempt) grades the first N released gpt4o_0806 responses (HelloBench's task order);
its checklist scores are compared with the verdicts GPT-4o gave the same responses in the HelloBench release:
exact agreement per checklist item, mean absolute difference (item scores 0..1), Spearman and Pearson correlation
of the row scores (0..100, HelloEval weights), and how many rows the judge left unscored. `--store` writes the
figures to inference/data/embedded_judge_agreement.json (written whole), which report.md shows beside HelloBench runs.

Run: python bench/judge_agreement.py [--judge BACKEND:MODEL] [--limit N] [--store [PATH]]
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import shlex
import sys
import time
from collections import Counter
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from longform_eval.common.atomic import write_text_atomic
from longform_eval.dataset_builder.hellobench import NAME, TASKS
from longform_eval.inference.backends import create_backend
from longform_eval.inference.backends.base import Request
from longform_eval.inference.benchmarks import Benchmark, JudgeCall, create_benchmark
from longform_eval.inference.benchmarks.rows import benchmark_rows
from longform_eval.inference.cli.args import DEFAULT_LIMITS, DEFAULT_MODEL, options_from
from longform_eval.inference.config import GenerationConfig, ModelSpec
from longform_eval.inference.report.sections.context import agreement_file, released_source, released_verdicts
from longform_eval.inference.runner.judging import split_rescue
from longform_eval.metric import Unscored
from longform_eval.metric.helloeval.parser import parse_checklist_verdict
from longform_eval.metric.helloeval.scoring import row_score

REFERENCE = "gpt4o_0806"


@dataclass(frozen=True)
class Pair:
    """One response: the judge's checklist scores (or Unscored) beside the released ones, and the row's weights."""

    row_id: str
    judged: list[float] | Unscored
    released: list[float]
    weights: list[float]


def released_responses(source: Path, model: str) -> list[dict[str, Any]]:
    records = []
    for task in TASKS:
        path = source / "generations" / "main_exp" / model / f"{task}_results.jsonl.gz"
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            records += [json.loads(line) for line in handle if line.strip()]
    return records


def first_rows(source: Path, rows: dict[str, dict], limit: int) -> list[tuple[dict, str, list[float]]]:
    """The first `limit` released responses that have a released verdict: (row, response, released scores)."""
    verdicts = {}
    for record in released_verdicts(source, REFERENCE):
        verdicts.setdefault(record["id"], record["checklist_wise_evaluation"])
    chosen, seen = [], set()
    for record in released_responses(source, REFERENCE):
        row_id = record["id"]
        if row_id in rows and row_id in verdicts and row_id not in seen:
            seen.add(row_id)
            released = parse_checklist_verdict(verdicts[row_id], rows[row_id]["num_checklist"])
            if not isinstance(released, Unscored):
                chosen.append((rows[row_id], record["response"], released))
        if len(chosen) == limit:
            break
    return chosen


def judge_all(
    backend, benchmark: Benchmark, calls: list[JudgeCall], rows: dict[str, dict], settings: tuple[GenerationConfig, int]
) -> dict[str, Any]:
    """Verdict (or Unscored) per call key, parsed by the paper's parser; a call whose reply does not parse is asked
    again, up to the given number of attempts."""
    config, attempts = settings
    parser = benchmark.paper_settings().parser
    verdicts: dict[str, Any] = {}
    todo = {call.key: call for call in calls}
    for attempt in range(1, attempts + 1):
        results = backend.generate([call.request for call in todo.values()], config)
        retry = {}
        for result in results:
            call = todo[result.key]
            if result.error:
                verdicts[call.key] = Unscored(f"call failed: {result.error}")
                continue
            verdict, _ = split_rescue(benchmark.parse(call, rows[call.sample_id], result.text, parser))
            if isinstance(verdict, Unscored) and attempt < attempts:
                retry[call.key] = call
            else:
                verdicts[call.key] = verdict
        todo = retry
        if not todo:
            break
    return verdicts


def correlation(kind: str, x: list[float], y: list[float]) -> float | None:
    """Spearman or Pearson; None with fewer than 3 rows (two points always correlate perfectly) or a constant side."""
    from scipy import stats

    if len(x) < 3 or len(set(x)) < 2 or len(set(y)) < 2:
        return None
    value = (stats.spearmanr if kind == "spearman" else stats.pearsonr)(x, y)[0]
    return float(value) if math.isfinite(value) else None


def agreement(pairs: list[Pair]) -> dict[str, Any]:
    """The figures over the rows the judge scored; unscored rows are counted with their reasons."""
    scored = [p for p in pairs if not isinstance(p.judged, Unscored)]
    items = [(a, b) for p in scored for a, b in zip(p.judged, p.released, strict=True)]
    judged_rows = [row_score(p.judged, p.weights) for p in scored]
    released_rows = [row_score(p.released, p.weights) for p in scored]
    return {
        "n_rows": len(pairs),
        "n_scored": len(scored),
        "n_unscored": len(pairs) - len(scored),
        "unscored_reasons": dict(Counter(p.judged.reason for p in pairs if isinstance(p.judged, Unscored))),
        "n_items": len(items),
        "item_exact_agreement": sum(a == b for a, b in items) / len(items) if items else None,
        "item_mean_abs_diff": sum(abs(a - b) for a, b in items) / len(items) if items else None,
        "row_spearman": correlation("spearman", judged_rows, released_rows),
        "row_pearson": correlation("pearson", judged_rows, released_rows),
    }


def measure(args: argparse.Namespace) -> dict[str, Any]:
    source = released_source(NAME, args.source)
    if source is None:
        raise SystemExit("no local HelloBench source folder (give --source or set LONGFORM_EVAL_SOURCE)")
    benchmark = create_benchmark(NAME, "all")
    rows = {row["id"]: row for row in benchmark_rows(benchmark, None, source=str(source))}
    chosen = first_rows(source, rows, args.limit)
    calls = [call for row, response, _ in chosen for call in benchmark.judge_calls(row, response)]
    if args.constrained == "on":
        calls = [replace(call, request=constrained(call.request, call.schema)) for call in calls]
    config = benchmark.paper_settings().judge.model_copy(update={"max_new_tokens": args.judge_max_new_tokens})
    backend = create_backend(ModelSpec.parse(args.judge, options_from(args.judge_arg, None)))
    began = time.perf_counter()
    try:
        verdicts = judge_all(backend, benchmark, calls, rows, (config, args.attempts))
    finally:
        backend.close()
    pairs = [
        Pair(row["id"], verdicts.get(row["id"], Unscored("no reply")), released, row["checklist_weights"])
        for row, _, released in chosen
    ]
    return {
        "judge": args.judge,
        "constrained": args.constrained == "on",
        "judge_max_new_tokens": args.judge_max_new_tokens,
        "attempts": args.attempts,
        "reference": REFERENCE,
        **agreement(pairs),
        "seconds": round(time.perf_counter() - began, 1),
        "date": datetime.now(timezone.utc).date().isoformat(),
        "command": shlex.join(["python", "bench/judge_agreement.py", *args.argv]),
    }


def constrained(request: Request, schema: dict[str, Any] | None) -> Request:
    return replace(request, json_schema=schema)


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--judge", default=DEFAULT_MODEL, help=f"BACKEND:MODEL (default {DEFAULT_MODEL})")
    parser.add_argument("--judge-arg", action="append", help="judge backend option KEY=VALUE (repeatable)")
    parser.add_argument("--limit", type=int, default=20, help="first N released responses (default 20)")
    parser.add_argument("--constrained", choices=["on", "off"], default="on", help="JSON-schema judging (default on)")
    parser.add_argument(
        "--judge-max-new-tokens", type=int, default=DEFAULT_LIMITS["judge_max_new_tokens"], help="as the main job"
    )
    parser.add_argument("--attempts", type=int, default=1, help="attempts per row until it parses (main job: 1)")
    parser.add_argument("--source", help="HelloBench source folder (default: as the runner finds it)")
    parser.add_argument(
        "--store",
        nargs="?",
        const=str(agreement_file()),
        help="write the figures as JSON (default path: the package's inference/data/embedded_judge_agreement.json)",
    )
    args = parser.parse_args(argv)
    args.argv = argv
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    figures = measure(args)
    text = json.dumps(figures, indent=2) + "\n"
    print(text, end="")
    if args.store:
        print(f"stored: {write_text_atomic(args.store, text)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
