"""Judge attempts over a set of calls: a call is written once it parses or its last attempt is spent.

A failed call (the server, not the judge's answer) is logged and left pending; it is never a verdict.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

from longform_eval.metric import Unscored

from ..backends.base import Request, Result
from ..benchmarks import JudgeCall
from ..progress import stage_progress
from .judge_samples import sample_call
from .schema import JudgementRecord
from .state import RunState


def judged_responses(run: RunState) -> Iterator[tuple[str, dict[str, Any], str, bool]]:
    """(sample id, row, response as judged, whether <think> was stripped) of every current generation of a row of
    the run: what its judge calls are made of."""
    for sample_id, (response, stripped) in run.responses().items():
        row = run.by_id.get(sample_id)
        if row is not None:
            yield sample_id, row, response, stripped


def pending_calls(run: RunState, tick: Callable[[], object]) -> list[tuple[JudgeCall, bool, str]]:
    """(call, think stripped, hash of the generation judged) for every call of `run` without a current judgement;
    `tick()` once per response whose calls are built."""
    done = run.current_judgements()
    generations = run.current_generations()
    calls = []
    for sample_id, row, response, stripped in judged_responses(run):
        judged = generations[sample_id].generation_hash
        for call in run.benchmark.judge_calls(row, response):
            samples = (sample_call(call, s) for s in range(run.config.judge_samples))
            calls.extend((c, stripped, judged) for c in samples if c.key not in done)
        tick()
    return calls


def judge_prompts(run: RunState) -> list[tuple[JudgeCall, bool, str]]:
    """`run`'s pending judge calls built under a progress line of their own (HelloBench tokenizes each answer for its
    judge: tens of seconds for 647), what the benchmark derived on the way (HelloBench's word counts, from the same
    tokens) kept for scoring."""
    responses = sum(sample_id in run.by_id for sample_id in run.responses())
    try:
        with stage_progress(f"judge prompts ({run.config.judge_label})", responses) as tick:
            return pending_calls(run, tick)
    finally:
        run.derived.save()


def split_rescue(parsed: object) -> tuple[object, str | None]:
    """A benchmark's parser returns a verdict, Unscored, or (verdict, rescue name) when a lenient rule saved it."""
    if isinstance(parsed, tuple) and len(parsed) == 2 and isinstance(parsed[1], str):
        return parsed[0], parsed[1]
    return parsed, None


class JudgeRounds:
    def __init__(self, run: RunState, pending: list[tuple[JudgeCall, bool, str]]):
        self.run = run
        self.stripped = {call.key: flag for call, flag, _ in pending}
        self.judged = {call.key: judged for call, _, judged in pending}
        self.todo = {call.key: call for call, _, _ in pending}
        self.history: dict[str, list[str]] = {}
        self.retry: dict[str, JudgeCall] = {}
        self.unscored = 0

    def requests(self) -> list[Request]:
        if not self.run.config.constrained_judge:
            return [call.request for call in self.todo.values()]
        return [replace(call.request, json_schema=call.schema) for call in self.todo.values()]

    def finish_attempt(self) -> None:
        """What did not parse goes to the next attempt."""
        self.todo, self.retry = self.retry, {}

    def record(self, result: Result, attempt: int, tick: Callable[[], None]) -> None:
        run = self.run
        run.judge_calls += 1
        call = self.todo[result.key]
        if result.error:
            run.record_failure("judge", result, call.sample_id, run.config.judge.name)
            tick()
            return
        self.history.setdefault(call.key, []).append(result.text)
        parsed = run.benchmark.parse(call, run.by_id[call.sample_id], result.text, run.config.parser)
        verdict, rescue = split_rescue(parsed)
        if isinstance(verdict, Unscored) and attempt < run.config.judge_attempts:
            self.retry[call.key] = call
            return
        self.unscored += isinstance(verdict, Unscored)
        run.judgements.append(self.judgement(call, verdict, rescue).model_dump(mode="json"))
        tick()

    def judgement(self, call: JudgeCall, verdict: object, rescue: str | None) -> JudgementRecord:
        completions = self.history[call.key]
        return JudgementRecord(
            key=call.key,
            sample_id=call.sample_id,
            judge=self.run.config.judge.name,
            config_hash=self.run.config.judge_hash,
            generation_hash=self.judged[call.key],
            completion=completions[-1],
            completions=completions,
            attempts=len(completions),
            verdict=None if isinstance(verdict, Unscored) else verdict,
            unscored_reason=verdict.reason if isinstance(verdict, Unscored) else None,
            rescue=rescue,
            stripped_think=self.stripped[call.key],
            meta=call.meta,
        )
