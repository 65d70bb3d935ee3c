"""A run folder and its stages. Every stage resumes: finished records are never redone or repeated."""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from longform_eval.dataset_builder.folder import package_version

from ..backends import Backend, create_backend
from ..backends.base import Request, Result
from ..benchmarks import Benchmark, JudgeCall, Selection, create_benchmark, rows_hash
from ..benchmarks.rows import benchmark_rows
from ..benchmarks.run_scores import RunScores
from ..config import GenerationConfig, ModelSpec
from ..environment_secrets import register_config_secrets
from ..progress import stage_progress
from .answers import read_answers
from .config import RunConfig
from .current_records import CurrentRecords
from .derived import DerivedValues
from .failures import log_failure
from .folder import CONFIG_FILE, check_writable_folder, read_config, validated_config
from .judge_samples import calls_by_sample, sample_key, sample_settings
from .judging import JudgeRounds, judge_prompts, judged_responses, pending_calls
from .lock import lock_run_folder
from .reconcile import reconciled
from .records import RecordLog
from .rows_file import stored_rows, write_rows_file
from .schema import GenerationRecord, JudgementRecord, config_hash
from .scoring import score_run, scores_of


def request_hash(request: Request, generation: dict[str, Any]) -> str:
    return config_hash({"messages": request.messages, "prompt": request.prompt, "config": generation})


class Run(CurrentRecords):
    """A run folder: its configuration, its benchmark and selected rows, and its record logs.

    Constructing one reads and writes nothing; `Run.create` (a configuration given) and `Run.open` (the folder's own
    config.yaml) are the named steps that load the rows, check the folder, take its lock and write config.yaml."""

    def __init__(
        self, folder: str | Path, config: RunConfig, benchmark: Benchmark, rows: list[dict], read_only: bool = False
    ):
        self.folder = Path(folder)
        self.config = config
        self.benchmark = benchmark
        self.rows = rows
        self.by_id = {row["id"]: row for row in rows}
        self.read_only = read_only  # a reader (the Space, a baseline): no lock taken, nothing written
        self.generations = RecordLog(self.folder / "generations.jsonl", GenerationRecord.KEY)
        self.judgements = RecordLog(self.folder / "judgements.jsonl", JudgementRecord.KEY)
        self.failures = RecordLog(self.folder / "failures.jsonl", ("stage", "key"))
        self.derived = DerivedValues(self.folder)
        if benchmark is not None:  # a run of records alone (tests) has none
            benchmark.derive = self.derived.get
        self.model_calls = 0
        self.judge_calls = 0
        self.failed: Counter[str] = Counter()
        self.memo: dict[tuple, dict] = {}  # the current records, by the logs' signatures (`remembered`)

    @classmethod
    def create(cls, folder: str | Path, config: RunConfig, force: bool = False, read_only: bool = False) -> Run:
        """Load and select the rows, check and lock the folder and write config.yaml (unless `read_only`: no lock,
        nothing written); `config` itself is not changed. A RunConfigMismatch if records bind another config."""
        register_config_secrets(config.model_dump(mode="json"))  # before the first byte is written
        model = config.model.identity(config.name) if config.model else None
        benchmark = create_benchmark(config.benchmark, config.benchmark_config, config.benchmark_args, model)
        benchmark.read_run = functools.partial(read_answers, cls.open)  # a pairwise baseline run folder
        kept = stored_rows(Path(folder), config)  # the rows the run evaluated, kept in its folder
        if kept is None:
            rows = benchmark_rows(benchmark, config.dataset, config.dataset_revision, config.source)
            rows = Selection(**config.selection).apply(rows, benchmark)
        rows, digest = kept or (rows, rows_hash(rows))
        config = config.model_copy(update={"dataset_hash": digest, "package_version": package_version()})
        if not read_only:
            from .parallel import is_main_process, process_rank

            check_writable_folder(Path(folder))  # a file, or a folder of someone else's files, is not written
            lock_run_folder(Path(folder), process_rank())
        run = cls(folder, config, benchmark, rows, read_only)
        run.config = run.reconcile(config, force)
        if not read_only and kept is None and is_main_process():
            write_rows_file(run.folder, run.config, rows)
        return run

    @classmethod
    def open(cls, folder: str | Path, read_only: bool = False, force: bool = False, **changes: Any) -> Run:
        """Reopen an existing run folder (for `judge`, `score`, `report`), optionally changing fields; `read_only`
        reads it as it is (no lock, no file written) while another process may be writing it."""
        stored = read_config(Path(folder))
        stored.update({k: v for k, v in changes.items() if v is not None})
        config = validated_config(Path(folder) / CONFIG_FILE, stored)
        return cls.create(folder, config, force=force, read_only=read_only)

    def reconcile(self, config: RunConfig, force: bool) -> RunConfig:
        """`config` as the folder's records allow it (`reconciled`); config.yaml written unless read-only."""
        return reconciled(self.folder, config, force, self.read_only)

    # ----- generate -------------------------------------------------------------------------------------
    def pending_generations(self) -> list[Request]:
        done = self.current_generations()
        return self.benchmark.generation_requests([row for row in self.rows if row["id"] not in done])

    def generate(self, backend_factory: Callable[[ModelSpec], Backend] = create_backend) -> int:
        """Generate the missing responses; returns the number of failed requests."""
        pending = self.pending_generations()
        if not pending:
            return 0
        if self.config.model is None:
            raise ValueError(f"{self.folder}: no model to generate with (this run imported its generations)")
        from .parallel import shard_for_this_process

        identity = (self.config.model_id, self.config.generation_hash)
        mine, log, finish = shard_for_this_process(pending, self.generations, lambda r: (r.key, *identity))
        failures = 0
        engines: set[str] = set()  # the engines that produced rows (Result.extra["engine"]), for config.yaml
        if mine:
            backend = backend_factory(self.config.model)
            with stage_progress(f"generate ({self.config.model_label})", len(mine)) as tick:

                def save(result: Result) -> None:
                    nonlocal failures
                    self.model_calls += 1
                    engines.add(result.extra.get("engine", ""))
                    if result.error:
                        failures += 1
                        self.record_failure("generate", result, result.key, self.config.model.name)
                    else:
                        log.append(self.generation_record(result).model_dump(mode="json"))
                    tick()

                try:
                    backend.generate(mine, self.config.generation, on_result=save)
                finally:
                    log.close()
                    self.failures.close()
                    self.record_engine(engines)
                    backend.close()
        finish()
        return failures

    def record_engine(self, engines: set[str], field: str = "engine") -> None:
        """config.yaml says which engine generated (`engine`) or judged (`judge_engine`), as the backend names it in
        `Result.extra["engine"]` (hf: continuous, or static; continuous if any row was)."""
        from .parallel import is_main_process

        named = sorted(engine for engine in engines if engine)
        engine = "continuous" if "continuous" in named else named[0] if named else None
        if engine and engine != getattr(self.config, field) and is_main_process():
            setattr(self.config, field, engine)
            self.reconcile(self.config, force=True)

    def generation_record(self, result: Result) -> GenerationRecord:
        request = self.benchmark.generation_request(self.by_id[result.key])
        return GenerationRecord(
            sample_id=result.key,
            model=self.config.model_id,
            config_hash=self.config.generation_hash,
            prompt_hash=request_hash(request, self.config.generation.model_dump(mode="json")),
            response=result.text,
            finish_reason=result.finish_reason,
            truncated=result.finish_reason == "length",
            prompt_tokens=result.prompt_tokens,
            completion_tokens=result.completion_tokens,
            seconds=round(result.seconds, 4),
            attempts=result.attempts,
        )

    def record_failure(self, stage: str, result: Result, sample_id: str, backend: str) -> None:
        """A failed call is logged, counted and left pending: the next run retries it (`failures.log_failure`)."""
        log_failure(self.failures, self.failed, stage, result, sample_id, backend)

    # ----- judge ----------------------------------------------------------------------------------------
    def pending_judge_keys(self) -> list[str]:
        """The keys of the judge calls without a current judgement, learnt without building a judge prompt (what a
        reader asks: `report`, `score`, `open_run`)."""
        done = self.current_judgements()
        keys = []
        for _, row, response, _ in judged_responses(self):
            for key in self.benchmark.judge_keys(row, response):
                samples = (sample_key(key, s) for s in range(self.config.judge_samples))
                keys.extend(k for k in samples if k not in done)
        return keys

    def pending_judge_calls(self, tick: Callable[[], object] = lambda: None) -> list[tuple[JudgeCall, bool, str]]:
        """(call, think stripped, hash of the generation judged) for every call without a current judgement."""
        return pending_calls(self, tick)

    def judge(self, backend_factory: Callable[[ModelSpec], Backend] = create_backend) -> int:
        """Judge every generation not judged yet; returns the number of unscored judgements written."""
        if not self.pending_judge_keys():
            return 0
        if self.config.judge is None:
            raise ValueError(f"{self.folder}: no judge configured; pass --judge BACKEND:MODEL")
        pending = judge_prompts(self)
        if not pending:
            return 0
        backend = backend_factory(self.config.judge)
        unscored = 0
        engines: set[str] = set()
        try:
            with stage_progress(f"judge ({self.config.judge_label})", len(pending)) as tick:
                for sample, calls in calls_by_sample(pending).items():
                    settings = sample_settings(self.config.judge_generation, sample)
                    unscored += self.judge_sample(backend, calls, settings, tick, engines)
        finally:
            self.judgements.close()
            self.failures.close()
            self.record_engine(engines, "judge_engine")
            backend.close()
        return unscored

    def judge_sample(
        self, backend: Backend, pending: list, settings: GenerationConfig, tick: Callable, engines: set[str]
    ) -> int:
        """One judge sample's calls, each until it parses or its attempts are spent; returns the unscored count."""
        rounds = JudgeRounds(self, pending)

        def save(result: Result, attempt: int) -> None:
            engines.add(result.extra.get("engine", ""))
            rounds.record(result, attempt=attempt, tick=tick)

        for attempt in range(1, self.config.judge_attempts + 1):
            if not rounds.todo:
                break
            backend.generate(rounds.requests(), settings, on_result=functools.partial(save, attempt=attempt))
            rounds.finish_attempt()
        return rounds.unscored

    # ----- score ----------------------------------------------------------------------------------------
    def score(self, write: bool = True) -> RunScores:
        """scores.json's content for the records as they are now; written (`write`, unless read-only) or computed in
        memory only. The values derived on the way are kept in the user's cache, not the folder."""
        try:
            return score_run(self) if write else scores_of(self)
        finally:
            self.derived.save()
