"""What the judge rounds and the scorer read and write of a run. `Run` has it all; naming it here lets judging.py
and scoring.py depend on this shape instead of on run.py, which imports them."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from ..backends.base import Request, Result
from ..benchmarks import Benchmark, JudgeCall
from .config import RunConfig
from .derived import DerivedValues
from .records import RecordLog
from .schema import GenerationRecord, JudgementRecord


class RunState(Protocol):
    folder: Path
    config: RunConfig
    benchmark: Benchmark
    rows: list[dict[str, Any]]
    by_id: dict[str, dict[str, Any]]
    judgements: RecordLog
    derived: DerivedValues
    judge_calls: int
    failed: Counter[str]

    def record_failure(self, stage: str, result: Result, sample_id: str, backend: str) -> None: ...

    def responses(self) -> dict[str, tuple[str, bool]]: ...

    def current_generations(self) -> dict[str, GenerationRecord]: ...

    def current_judgements(self) -> dict[str, JudgementRecord]: ...

    def pending_generations(self) -> list[Request]: ...

    def pending_judge_calls(self, tick: Callable[[], object] = ...) -> list[tuple[JudgeCall, bool, str]]: ...

    def pending_judge_keys(self) -> list[str]: ...
