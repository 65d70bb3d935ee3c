"""Plug-in core: rows -> generation requests -> judge requests -> verdicts -> scores."""

from __future__ import annotations

from typing import Any

from longform_eval.inference.backends.base import Request
from longform_eval.inference.benchmarks import Benchmark, JudgeCall, PaperSettings
from longform_eval.inference.config import GenerationConfig
from longform_eval.metric import Unscored

from .scoring import accuracy, verdict


class ToyPlug(Benchmark):
    name = "toyplug"
    configs = ("default",)
    default_config = "default"
    group_field = "kind"
    text_field = "text"
    headline_figure = "accuracy"

    def paper_settings(self) -> PaperSettings:
        return PaperSettings(
            generation=GenerationConfig(max_new_tokens=8, temperature=0.0),
            judge=GenerationConfig(max_new_tokens=8, temperature=0.0),
            judge_model="toy-judge",
            judge_attempts=1,
        )

    def generation_request(self, row: dict[str, Any]) -> Request:
        return Request(key=row["id"], prompt=f"Repeat the word on the next line.\n{row['text']}")

    def judge_calls(self, row: dict[str, Any], response: str) -> list[JudgeCall]:
        prompt = f"Answer with the word the response gives.\n{response.strip()}"
        return [JudgeCall(row["id"], row["id"], Request(key=row["id"], prompt=prompt))]

    def parse(self, call: JudgeCall, row: dict[str, Any], completion: str, parser: str) -> Any:
        return verdict(completion, row["target"])

    def score(self, rows: list[dict[str, Any]], responses: dict[str, str], verdicts: dict[str, Any]) -> dict[str, Any]:
        # A JSON object, as a plug-in written before typed figures returns it: the runner reads it as its layout.
        found = [verdicts[r["id"]] for r in rows if r["id"] in verdicts]
        judged = [v for v in found if not isinstance(v, Unscored)]
        answered = sum(1 for r in rows if r["id"] in responses)
        return {"accuracy": accuracy(judged), "n_scored": len(judged), "n_unscored": answered - len(judged)}
