"""The LLM judge in the arena: both orders with the pairwise prompt, combined; a flip is reported."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from longform_eval.inference.backends.base import Request
from longform_eval.inference.config import GenerationConfig, parse_model_args
from longform_eval.metric import Unscored
from longform_eval.metric.pairwise import Outcome, combine_orders, pairwise_messages, parse_pairwise_verdict, swap


@dataclass(frozen=True)
class JudgeVerdict:
    original: Outcome | Unscored
    swapped: Outcome | Unscored
    combined: Outcome | Unscored

    @classmethod
    def unscored(cls, reason: str) -> JudgeVerdict:
        """No verdict in either order, for `reason`."""
        return cls(Unscored(reason), Unscored(reason), Unscored(reason))

    @property
    def flipped(self) -> bool | None:
        if isinstance(self.original, Unscored) or isinstance(self.swapped, Unscored):
            return None
        return self.original != swap(self.swapped)


JUDGE_ARGS_VARIABLE = "LONGFORM_EVAL_JUDGE_ARGS"


def judge_options(text: str | None) -> dict[str, Any]:
    """LONGFORM_EVAL_JUDGE_ARGS: a YAML mapping (`{timeout: 60}`) or KEY=VALUE pairs separated by spaces or lines."""
    if not text or not text.strip():
        return {}
    from longform_eval.inference.yaml_files import load_yaml

    if not text.lstrip().startswith("{") and "=" in text:
        return parse_model_args(text.split(), JUDGE_ARGS_VARIABLE)
    found = load_yaml(text)
    if not isinstance(found, dict):
        raise ValueError(f"{JUDGE_ARGS_VARIABLE}: expected a YAML mapping or KEY=VALUE pairs")
    return found


def arena_judge(judge: str, options: dict[str, Any] | None = None) -> ArenaJudge:
    """The arena's judge, through the runner's path: `BACKEND:MODEL` and its options checked (names, types, ranges,
    no secret) as `longform-eval run --judge ... --judge-arg ...` checks them; a ConfigError names `judge_args`."""
    from longform_eval.inference.api.config_build import backend_spec, check_model_found
    from longform_eval.inference.backends import create_backend

    spec = backend_spec(judge, options or {}, "judge")
    check_model_found(spec, "judge")
    return ArenaJudge(create_backend(spec))


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
