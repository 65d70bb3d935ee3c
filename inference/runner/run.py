"""A run folder and its stages. Every stage resumes: finished records are never redone or repeated."""

from __future__ import annotations

import functools
import hashlib
import json
import time
from collections import Counter
from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict

from longform_eval.dataset_builder.atomic import write_text_atomic
from longform_eval.metric import Unscored

from ..backends import Backend, create_backend
from ..backends.base import Request, Result
from ..benchmarks import JudgeCall, Selection, load_benchmark, rows_hash, strip_think
from ..config import GenerationConfig, ModelSpec
from ..progress import console, stage_progress
from ..records import RecordLog
from .lock import lock_run_folder

CONFIG_FILE = "config.yaml"
IGNORED_ON_RESUME = {"package_version"}


class RunConfigMismatch(ValueError):
    pass


def package_version() -> str:
    try:
        return version("longform-eval")
    except PackageNotFoundError:
        return "unknown"


class RunConfig(BaseModel):
    """Everything needed to reproduce a run."""

    model_config = ConfigDict(extra="forbid")

    benchmark: str
    selection: dict[str, Any]
    source: str | None = None
    generator_seed: int = 0
    generator_per_scenario: int = 100
    verdict_rule: str = "paper"
    dataset_hash: str = ""
    model: ModelSpec | None = None
    generation: GenerationConfig
    judge: ModelSpec | None = None
    judge_generation: GenerationConfig
    judge_attempts: int = 1
    strip_think: bool = True
    package_version: str = ""


def request_hash(request: Request, config: GenerationConfig) -> str:
    payload = {"messages": request.messages, "prompt": request.prompt, "config": config.model_dump(mode="json")}
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:16]


def generation_hash(generation: dict[str, Any]) -> str:
    """What a judgement was made of: a changed or regenerated response invalidates its judgements."""
    return hashlib.sha256(generation["response"].encode("utf-8")).hexdigest()[:16]


class Run:
    def __init__(self, folder: str | Path, config: RunConfig, force: bool = False):
        self.folder = Path(folder)
        self.benchmark = load_benchmark(
            config.benchmark,
            Selection(**config.selection),
            config.source,
            **(
                {
                    "seed": config.generator_seed,
                    "verdict_rule": config.verdict_rule,
                    "per_scenario": config.generator_per_scenario,
                }
                if config.benchmark == "longgenbench"
                else {}
            ),
        )
        config.dataset_hash = rows_hash(self.benchmark.rows)
        config.package_version = package_version()
        from ..parallel import process_rank

        lock_run_folder(self.folder, process_rank())
        self.config = self.reconcile(config, force)
        self.generations = RecordLog(self.folder / "generations.jsonl", ("sample_id",))
        self.judgements = RecordLog(self.folder / "judgements.jsonl", ("key",))
        self.failures = RecordLog(self.folder / "failures.jsonl", ("stage", "key"))
        self.model_calls = 0
        self.judge_calls = 0
        self.failed: Counter[str] = Counter()

    @classmethod
    def open(cls, folder: str | Path, **changes: Any) -> Run:
        """Reopen an existing run folder (for `judge`, `score`, `report`), optionally setting missing fields."""
        path = Path(folder) / CONFIG_FILE
        if not path.is_file():
            raise FileNotFoundError(f"{path}: not a run folder (no {CONFIG_FILE})")
        stored = yaml.safe_load(path.read_text(encoding="utf-8"))
        force = changes.pop("force", False)
        stored.update({k: v for k, v in changes.items() if v is not None})
        return cls(folder, RunConfig.model_validate(stored), force=force)

    def reconcile(self, config: RunConfig, force: bool) -> RunConfig:
        path = self.folder / CONFIG_FILE
        if path.is_file() and not force:
            stored = yaml.safe_load(path.read_text(encoding="utf-8"))
            new = config.model_dump(mode="json")
            changed = sorted(
                k
                for k in new
                if k not in IGNORED_ON_RESUME
                and stored.get(k) != new[k]
                and not (k == "judge" and stored.get(k) is None)
            )
            if changed:
                raise RunConfigMismatch(
                    f"{path}: the run was started with a different configuration ({', '.join(changed)}). "
                    "Use another --out folder, or --force to continue with the new configuration."
                )
        text = yaml.safe_dump(config.model_dump(mode="json"), sort_keys=False, allow_unicode=True)
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            write_text_atomic(path, text)
        return config

    def record_failure(self, stage: str, result: Result, sample_id: str, backend: str) -> None:
        """A failed call is logged, counted and left pending: the next run retries it."""
        self.failed[f"{stage}: {result.error}"[:160]] += 1
        self.failures.append(
            {
                "stage": stage,
                "key": result.key,
                "sample_id": sample_id,
                "backend": backend,
                "error": result.error,
                "attempts": result.attempts,
                "time": time.strftime("%Y-%m-%dT%H:%M:%S"),
            }
        )
        console.print(f"[red]{stage} call {result.key} (sample {sample_id}) to {backend} failed: {result.error}")

    # ----- generate -------------------------------------------------------------------------------------
    def pending_generations(self) -> list[Request]:
        done = {key[0] for key in self.generations.done_keys()}
        return [self.benchmark.generation_request(row) for row in self.benchmark.rows if row["id"] not in done]

    def generate(self, backend_factory: Callable[[ModelSpec], Backend] = create_backend) -> int:
        """Generate the missing responses; returns the number of failed requests."""
        pending = self.pending_generations()
        if not pending:
            return 0
        if self.config.model is None:
            raise ValueError(f"{self.folder}: no model to generate with (this run imported its generations)")
        from ..parallel import shard_for_this_process

        mine, log, finish = shard_for_this_process(pending, self.generations)
        failures = 0
        if mine:
            backend = backend_factory(self.config.model)
            with stage_progress(f"generate ({self.config.model.name})", len(mine)) as tick:

                def save(result: Result) -> None:
                    nonlocal failures
                    self.model_calls += 1
                    if result.error:
                        failures += 1
                        self.record_failure("generate", result, result.key, self.config.model.name)
                    else:
                        log.append(self.generation_record(result))
                    tick()

                try:
                    backend.generate(mine, self.config.generation, on_result=save)
                finally:
                    log.close()
                    self.failures.close()
                    backend.close()
        finish()
        return failures

    def generation_record(self, result: Result) -> dict[str, Any]:
        row = self.benchmark.by_id[result.key]
        request = self.benchmark.generation_request(row)
        return {
            "sample_id": result.key,
            "model": self.config.model.name,
            "prompt_hash": request_hash(request, self.config.generation),
            "response": result.text,
            "finish_reason": result.finish_reason,
            "truncated": result.finish_reason == "length",
            "prompt_tokens": result.prompt_tokens,
            "completion_tokens": result.completion_tokens,
            "seconds": round(result.seconds, 4),
            "attempts": result.attempts,
        }

    # ----- judge ----------------------------------------------------------------------------------------
    def current_judgements(self) -> dict[str, dict[str, Any]]:
        """Judgements of the generations as they are now; one made of an older response is left out.

        Records written before judgements carried `generation_hash` are kept as they are.
        """
        hashes = {key[0]: generation_hash(g) for key, g in self.generations.latest().items()}
        return {
            key[0]: record
            for key, record in self.judgements.latest().items()
            if record.get("generation_hash") in (None, hashes.get(record.get("sample_id")))
        }

    def pending_judge_calls(self) -> list[tuple[JudgeCall, bool, str]]:
        done = set(self.current_judgements())
        calls = []
        for sample_id, generation in self.generations.latest().items():
            row = self.benchmark.by_id.get(sample_id[0])
            if row is None:
                continue
            response, stripped = generation["response"], False
            if self.config.strip_think:
                response, stripped = strip_think(response)
            judged = generation_hash(generation)
            calls.extend((c, stripped, judged) for c in self.benchmark.judge_calls(row, response) if c.key not in done)
        return calls

    def judge(self, backend_factory: Callable[[ModelSpec], Backend] = create_backend) -> int:
        """Judge every generation not judged yet; returns the number of unscored judgements written."""
        pending = self.pending_judge_calls()
        if not pending:
            return 0
        if self.config.judge is None:
            raise ValueError(f"{self.folder}: no judge configured; pass --judge BACKEND:MODEL")
        backend = backend_factory(self.config.judge)
        rounds = JudgeRounds(self, pending)
        try:
            with stage_progress(f"judge ({self.config.judge.name})", len(pending)) as tick:
                for attempt in range(1, self.config.judge_attempts + 1):
                    if not rounds.todo:
                        break
                    save = functools.partial(rounds.record, attempt=attempt, tick=tick)
                    backend.generate(rounds.requests(), self.attempt_config(attempt), on_result=save)
                    rounds.finish_attempt()
        finally:
            self.judgements.close()
            self.failures.close()
            backend.close()
        return rounds.unscored

    def attempt_config(self, attempt: int) -> GenerationConfig:
        """Later attempts sample with another seed, so that a retry can give a different answer."""
        config = self.config.judge_generation
        if attempt > 1 and config.seed is not None:
            config = config.model_copy(update={"seed": config.seed + attempt - 1})
        return config

    def judgement_record(
        self, call: JudgeCall, verdict: Any, completions: list[str], stripped: bool, judged: str
    ) -> dict[str, Any]:
        return {
            "key": call.key,
            "sample_id": call.sample_id,
            "generation_hash": judged,
            "judge": self.config.judge.name,
            "completion": completions[-1],
            "completions": completions,
            "attempts": len(completions),
            "verdict": None if isinstance(verdict, Unscored) else verdict,
            "unscored_reason": verdict.reason if isinstance(verdict, Unscored) else None,
            "stripped_think": stripped,
            **call.meta,
        }

    # ----- score ----------------------------------------------------------------------------------------
    def score(self) -> dict[str, Any]:
        generations = {k[0]: v for k, v in self.generations.latest().items()}
        judgements = self.current_judgements()
        scores = self.benchmark.score(generations, judgements)
        scores["benchmark"] = self.config.benchmark
        scores["model"] = self.config.model.name if self.config.model else self.folder.name
        scores["judge"] = self.config.judge.name if self.config.judge else None
        scores["n_samples"] = len(self.benchmark.rows)
        scores["n_generated"] = len(generations)
        scores["n_truncated_generations"] = sum(1 for g in generations.values() if g.get("truncated"))
        scores["n_pending_generations"] = len(self.pending_generations())
        scores["n_pending_judge_calls"] = len(self.pending_judge_calls())
        scores["complete"] = scores["n_pending_generations"] == 0 and scores["n_pending_judge_calls"] == 0
        scores["deviations"] = self.deviations()
        write_text_atomic(self.folder / "scores.json", json.dumps(scores, indent=2, ensure_ascii=False) + "\n")
        return scores

    def deviations(self) -> list[str]:
        """Where this run's settings differ from the paper's, so that reports never hide it."""
        found = []
        for role, actual, paper in (
            ("generation", self.config.generation, self.benchmark.generation_defaults()),
            ("judge", self.config.judge_generation, self.benchmark.judge_defaults()),
        ):
            for field, value in actual.model_dump().items():
                expected = getattr(paper, field)
                if value != expected:
                    found.append(f"{role} {field} = {value!r} (paper: {expected!r})")
        if self.config.judge_attempts != self.benchmark.judge_attempts:
            found.append(f"judge attempts = {self.config.judge_attempts} (paper: {self.benchmark.judge_attempts})")
        return found


class JudgeRounds:
    """Attempts over a set of judge calls: a call is written once it parses or its last attempt is spent."""

    def __init__(self, run: Run, pending: list[tuple[JudgeCall, bool, str]]):
        self.run = run
        self.stripped = {call.key: flag for call, flag, _ in pending}
        self.judged = {call.key: judged for call, _, judged in pending}
        self.todo = {call.key: call for call, _, _ in pending}
        self.history: dict[str, list[str]] = {}
        self.retry: dict[str, JudgeCall] = {}
        self.unscored = 0

    def requests(self) -> list[Request]:
        return [call.request for call in self.todo.values()]

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
        verdict = run.benchmark.parse(call.meta, run.benchmark.by_id[call.sample_id], result.text)
        if isinstance(verdict, Unscored) and attempt < run.config.judge_attempts:
            self.retry[call.key] = call
        else:
            self.unscored += isinstance(verdict, Unscored)
            history, stripped, judged = self.history[call.key], self.stripped[call.key], self.judged[call.key]
            run.judgements.append(run.judgement_record(call, verdict, history, stripped, judged))
            tick()
