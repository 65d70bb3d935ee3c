"""A benchmark defined outside the package: one question per row, a yes/no judge, the share of yes.

It registers through the public decorator (imported by the test) and, as `toy_entry`, through the
`longform_eval.benchmarks` entry-point group of a throw-away distribution (see test_benchmark_plugins.py).
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from longform_eval.inference.backends.base import Request
from longform_eval.inference.benchmarks import (
    Benchmark,
    BenchmarkArgs,
    JudgeCall,
    PaperSettings,
    register_benchmark,
)
from longform_eval.inference.benchmarks.layouts import Layout
from longform_eval.inference.config import GenerationConfig
from longform_eval.metric import Unscored


class ToyArgs(BenchmarkArgs):
    suffix: str = Field("", max_length=20, description="appended to every question")


class ToyBenchmark(Benchmark):
    name = "toy"
    configs = ("default", "hard")
    headline_figure = "accuracy"  # no presentation declared: the generic one shows this figure
    default_config = "default"
    Args = ToyArgs
    group_field = "topic"
    text_field = "question"

    def paper_settings(self) -> PaperSettings:
        return PaperSettings(
            generation=GenerationConfig(max_new_tokens=32, temperature=0.0),
            judge=GenerationConfig(max_new_tokens=4, temperature=0.0),
            judge_model="toy-judge",
            judge_attempts=2,
        )

    def generation_request(self, row: dict[str, Any]) -> Request:
        return Request(key=row["id"], messages=({"role": "user", "content": row["question"] + self.args.suffix},))

    def judge_calls(self, row: dict[str, Any], response: str) -> list[JudgeCall]:
        prompt = f"Question: {row['question']}\nAnswer: {response}\nIs the answer right? yes or no"
        return [JudgeCall(row["id"], row["id"], Request(key=row["id"], prompt=prompt))]

    def parse(self, call: JudgeCall, row: dict[str, Any], completion: str, parser: str) -> Any:
        word = completion.strip().lower()
        return word == "yes" if word in ("yes", "no") else Unscored(f"not yes/no: {completion[:20]!r}")

    def score(self, rows: list[dict[str, Any]], responses: dict[str, str], verdicts: dict[str, Any]) -> Layout:
        judged = [
            verdicts[r["id"]] for r in rows if r["id"] in verdicts and not isinstance(verdicts[r["id"]], Unscored)
        ]
        return self.typed_figures(
            {
                "accuracy": 100.0 * sum(judged) / len(judged) if judged else None,
                "n_scored": len(judged),
                "n_unscored": sum(1 for r in rows if r["id"] in responses) - len(judged),
            }
        )


def register() -> type[Benchmark]:
    return register_benchmark(ToyBenchmark)


class ToyEntryBenchmark(ToyBenchmark):
    name = "toy_entry"
