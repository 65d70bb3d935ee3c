"""What the arena compares: HelloBench prompts and the responses of several models to them.

Responses come from run folders (`generations.jsonl`) and/or folders of released HelloBench responses
(`<model>/<task>_results.jsonl[.gz]`, as in ../shared/data/hellobench/generations/main_exp). A line that does not
parse (the torn last line of a run killed with SIGKILL, a damaged record) is skipped with a warning naming the file
and line: one bad line never keeps the Space from starting.
"""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from longform_eval.dataset_builder.released import read_records, released_responses
from longform_eval.inference.benchmarks import create_benchmark
from longform_eval.inference.dataset_rows import benchmark_rows


@dataclass(frozen=True)
class Pair:
    item_id: str
    model_a: str
    model_b: str
    order_shown: str  # "sorted" if model_a < model_b, else "swapped"


class ResponsePool:
    def __init__(self, rows: list[dict[str, Any]], responses: dict[str, dict[str, str]]):
        self.rows = {row["id"]: row for row in rows}
        self.responses = {i: r for i, r in responses.items() if i in self.rows}

    @classmethod
    def load(
        cls,
        runs: Path | None = None,
        released: Path | None = None,
        source: str | None = None,
        dataset: str | None = None,
    ) -> ResponsePool:
        """HelloBench rows the way the runner reads them (`dataset`, else the cached build of `source`)."""
        rows = benchmark_rows(create_benchmark("hellobench", "all"), dataset, source=source)
        responses: dict[str, dict[str, str]] = defaultdict(dict)
        if released and released.is_dir():
            for model_dir in sorted(p for p in released.iterdir() if p.is_dir()):
                for item_id, text in released_responses(model_dir):
                    responses[item_id].setdefault(model_dir.name, text)
        if runs and runs.is_dir():
            for generations in sorted(runs.glob("**/generations.jsonl")):
                for record in read_records(generations, "sample_id"):
                    model = record.get("model") or generations.parent.name
                    responses[record["sample_id"]].setdefault(model, record["response"])
        return cls(rows, responses)

    def models(self) -> list[str]:
        return sorted({m for by_model in self.responses.values() for m in by_model})

    def items(self, task: str | None = None, subcategory: str | None = None) -> list[str]:
        return [
            item_id
            for item_id, by_model in self.responses.items()
            if len(by_model) >= 2
            and (not task or self.rows[item_id]["task"] == task)
            and (not subcategory or self.rows[item_id]["subcategory"] == subcategory)
        ]

    def random_pair(self, rng: random.Random, task: str | None = None, subcategory: str | None = None) -> Pair:
        candidates = self.items(task, subcategory)
        if not candidates:
            raise LookupError("no prompt with responses from two models matches this filter")
        item_id = rng.choice(sorted(candidates))
        first, second = rng.sample(sorted(self.responses[item_id]), 2)
        return Pair(item_id, first, second, "sorted" if first < second else "swapped")

    def response(self, item_id: str, model: str) -> str:
        return self.responses[item_id][model]
