"""The LLM judge in the arena: both orders with the pairwise prompt, combined; a flip is reported."""

from __future__ import annotations

from dataclasses import dataclass

from longform_eval.inference.backends.base import Request
from longform_eval.inference.config import GenerationConfig
from longform_eval.metric import Unscored
from longform_eval.metric.pairwise import Outcome, combine_orders, pairwise_messages, parse_pairwise_verdict, swap


@dataclass(frozen=True)
class JudgeVerdict:
    original: Outcome | Unscored
    swapped: Outcome | Unscored
    combined: Outcome | Unscored

    @property
    def flipped(self) -> bool | None:
        if isinstance(self.original, Unscored) or isinstance(self.swapped, Unscored):
            return None
        return self.original != swap(self.swapped)


class ArenaJudge:
    def __init__(self, backend, config: GenerationConfig | None = None):
        self.backend = backend
        self.config = config or GenerationConfig(max_new_tokens=1024, temperature=0.0, seed=42)

    def judge(self, question: str, answer_a: str, answer_b: str) -> JudgeVerdict:
        requests = [
            Request(key="original", messages=tuple(pairwise_messages(question, answer_a, answer_b))),
            Request(key="swapped", messages=tuple(pairwise_messages(question, answer_b, answer_a))),
        ]
        results = {r.key: r for r in self.backend.generate(requests, self.config)}
        verdicts = {
            key: Unscored(f"judge call failed: {r.error}") if r.error else parse_pairwise_verdict(r.text)
            for key, r in results.items()
        }
        return JudgeVerdict(
            verdicts["original"], verdicts["swapped"], combine_orders(verdicts["original"], verdicts["swapped"])
        )
