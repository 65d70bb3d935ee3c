"""The calls a run folder still owes: the scores leave them out until `run` (or `judge`) makes them.

Only calls the folder can make count: generations when it has a model (an imported run's missing rows are not
pending), judge calls when it has a judge. A pending call whose last try failed is reported with its logged reason.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from longform_eval.common.plurals import counted

from ..secret_values import scrub

if TYPE_CHECKING:
    from .run import Run


@dataclass
class PendingCalls:
    folder: Path
    failures_log: Path
    generations: int = 0
    judge_calls: int = 0
    failed: Counter[str] = field(default_factory=Counter)  # "stage: error" of the pending calls that failed

    @property
    def count(self) -> int:
        return self.generations + self.judge_calls

    def lines(self) -> list[str]:
        """What `run` prints for the calls that failed, and a line for those not made yet; none when complete."""
        lines = []
        failed = sum(self.failed.values())
        if failed:
            lines.append(
                f"{self.folder}: {counted(failed, 'call')} failed and {'stays' if failed == 1 else 'stay'} pending "
                f"(logged in {self.failures_log}); run the command that made them (`run`, `generate` or `judge`) "
                "again to retry them:"
            )
            lines += [f"  {count} x {scrub(reason)}" for reason, count in self.failed.most_common(5)]
        if self.count > failed:
            lines.append(
                f"{self.folder}: {counted(self.count - failed, 'call')} not made yet "
                f"({counted(self.generations, 'generation')} and {counted(self.judge_calls, 'judge call')} pending "
                "in all); the scores leave them out until `run` (or `judge`) makes them"
            )
        return lines


def pending_calls(run: Run) -> PendingCalls:
    model, judge = run.config.model, run.config.judge
    generate = {r.key for r in run.pending_generations()} if model is not None else set()
    judging = set(run.pending_judge_keys()) if judge is not None else set()
    pending = PendingCalls(run.folder, run.failures.path, len(generate), len(judging))
    owed = {"generate": (generate, model.name if model else ""), "judge": (judging, judge.name if judge else "")}
    for record in run.failures.latest().values():
        keys, backend = owed.get(record.get("stage"), (set(), ""))
        if record.get("key") in keys and same_backend(record, backend):
            pending.failed[f"{record['stage']}: {record.get('error')}"[:160]] += 1
    return pending


def same_backend(record: dict[str, Any], backend: str) -> bool:
    """A failure logged for this folder's model or judge (not for one a since replaced configuration named)."""
    return scrub(str(record.get("backend"))) == scrub(backend)
