"""The `hf` backend's continuous passes: a memory plan before the first, and what each next pass retries.

Before the first step the rows are planned (`memory_plan`): the KV cache, the prefill chunk and CUDA graphs are sized
from the model, the rows and the free memory, and the plan is printed in one line; rows too long for any plan are
named and left to static batching. A pass the engine fails as a whole with an out-of-memory error is followed by one
that retries only the rows still in flight with a smaller plan (`MemoryPlan.shrink`); any other pass-wide error, or
one no smaller plan is left for, leaves out the longest prompts (the prompt cap halves). The rows no pass finished
are the caller's (static batching).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from longform_eval.common.plurals import counted

from ..config import GenerationConfig
from .base import OnResult, Result
from .memory_plan import MemoryPlan, ModelShape, Workload, plan_memory, size, too_long

MAX_PASSES = 8  # continuous passes before the rows left go to static batching
OUT_OF_MEMORY = ("out of memory", "outofmemoryerror", "memoryerror", "memory footprint")


def out_of_memory(error: str) -> bool:
    """Whether an engine's error says it ran out of memory (torch's OOM, or the engine's own sizing check)."""
    text = error.lower()
    return any(sign in text for sign in OUT_OF_MEMORY)


@dataclass
class PassSchedule:
    """Which rows each continuous pass takes, with which plan (or, without a plan, whether with CUDA graphs).

    Pass-wide failure: at least two rows failed and all the engine's errors among them are one (rows that never came
    back were dropped by the stopping engine; rows cut short carry no error). After one that ran out of memory the
    next pass takes the rows left with `plan.shrink(...)`; after any other (or with nothing left to shrink) it leaves
    out the prompts over half the longest that failed, and from the third pass on CUDA graphs are off (without a
    plan: unless `cuda_graph` says otherwise). Anything else ends the passes.
    """

    plan: MemoryPlan | None
    cuda_graph: bool | None
    on_cuda: bool
    max_new_tokens: int = 0
    max_passes: int = MAX_PASSES
    prompt_cap: int | None = None
    passes: int = 0
    finished: bool = False
    notes: list[str] = field(default_factory=list)

    def graphs(self) -> bool | None:
        if self.plan is not None:
            return self.plan.graphs
        if self.cuda_graph is not None or not self.on_cuda:
            return self.cuda_graph
        return self.passes < 2  # False, not None: transformers' default turns graphs on with flash attention

    def engine(self) -> str:
        return self.plan.engine() if self.plan is not None else "continuous"

    def rows(self, todo: dict[str, list[int]]) -> dict[str, list[int]]:
        """The rows the next pass takes (empty: no further continuous pass)."""
        if self.finished or self.passes >= self.max_passes:
            return {}
        return {k: ids for k, ids in todo.items() if self.prompt_cap is None or len(ids) <= self.prompt_cap}

    def record(self, taken: dict[str, list[int]], failed: Sequence[str], engine_errors: dict[str, str]) -> None:
        """Learn from a pass that took `taken` and failed `failed`, some with an error of the engine's."""
        self.passes += 1
        errors = {engine_errors[k] for k in failed if k in engine_errors}
        if len(failed) < 2 or len(errors) != 1 or self.passes >= self.max_passes:
            self.finished = True
            return
        error = errors.pop()
        longest = max(len(taken[k]) for k in failed)
        smaller = self.plan.shrink(longest + self.max_new_tokens) if self.plan and out_of_memory(error) else None
        if smaller is not None:
            self.plan = smaller
            self.notes.append(
                f"out of memory with {counted(len(failed), 'row')} in flight ({error[:300]}); "
                f"the next pass retries them with {smaller.summary()}"
            )
            return
        self.prompt_cap = longest // 2
        if self.plan is not None and self.plan.graphs and self.passes >= 2:  # graphs off from the third pass
            self.plan = replace(self.plan, graphs=False, retry=self.plan.retry + 1)
        self.notes.append(
            f"the engine failed {counted(len(failed), 'row')} at once ({error[:300]}); "
            f"the next pass takes prompts of at most {self.prompt_cap} tokens"
        )


def available_memory(device: str) -> int | None:
    """Free bytes on `device`: the GPU's free memory on CUDA, the available RAM on CPU; None elsewhere."""
    if device.startswith("cuda"):
        from .hf_batching import free_bytes

        return free_bytes(device)
    if device != "cpu":
        return None
    try:
        import psutil

        return int(psutil.virtual_memory().available)
    except ImportError:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


def model_shape(model: Any) -> ModelShape | None:
    """The model's shape for the plan, or None when its config does not say (no plan: the engine sizes itself)."""
    try:
        attention = getattr(model.config, "_attn_implementation", None)
        return ModelShape.of(model.config, model.dtype.itemsize, attention)
    except (AttributeError, TypeError, ValueError):
        return None


def make_plan(backend: Any, todo: dict[str, list[int]], config: GenerationConfig) -> tuple[MemoryPlan | None, list]:
    """(the plan for the rows that have one, the keys of the rows too long for any plan); both printed."""
    from rich.markup import escape

    from ..progress import console

    shape, free = backend.model_shape(), backend.free_memory()
    if shape is None or free is None or not todo:
        return None, []
    keys = list(todo)
    lengths = [len(todo[k]) for k in keys]
    long = [keys[i] for i in too_long(shape, lengths, config.max_new_tokens, free)]
    if long:
        shown = ", ".join(long[:10]) + (f" and {len(long) - 10} more" if len(long) > 10 else "")
        longest = max(len(todo[k]) for k in long)
        console.print(
            f"[yellow]hf: {counted(len(long), 'row')} too long for any continuous plan in {size(free)} free "
            f"(longest prompt {counted(longest, 'token')}): {escape(shown)}; they go to static batching"
        )
    dropped = set(long)
    workload = Workload(tuple(len(todo[k]) for k in keys if k not in dropped), config.max_new_tokens)
    graphs = backend.cuda_graph if str(backend.device).startswith("cuda") else False  # no graphs off CUDA
    plan = plan_memory(shape, workload, free, graphs, backend.kv_memory) if workload.prompt_tokens else None
    if plan is not None:
        console.print(plan.line(workload), markup=False, soft_wrap=True)
    return plan, long


def run_passes(backend: Any, requests: Sequence, ids: dict[str, list[int]], config, on_result: OnResult | None):
    """Continuous passes over `requests` as `PassSchedule` plans them; the rows they do not finish are left to the
    caller. `backend` is an HFBackend (its model, tokenizer, options and `start_manager`)."""
    from rich.markup import escape

    from ..progress import console
    from .hf_continuous import ContinuousRun, engine_generation_config

    generation = engine_generation_config(backend.model, config, backend.tokenizer)
    todo = {r.key: ids[r.key] for r in requests}
    plan, long = make_plan(backend, todo, config)
    for key in long:
        del todo[key]
    on_cuda = str(backend.device).startswith("cuda")
    schedule = PassSchedule(plan, backend.cuda_graph, on_cuda, config.max_new_tokens)
    results: list[Result] = []
    while taken := schedule.rows(todo):
        start = functools.partial(
            backend.start_manager, config=config, plan=schedule.plan, cuda_graph=schedule.graphs()
        )
        run = ContinuousRun(backend.tokenizer, generation, config, start, engine=schedule.engine())
        backend.plans.append(schedule.engine())
        finished, failed = run.run(taken, on_result)
        results.extend(finished)
        for result in finished:
            del todo[result.key]
        if failed:
            console.print(
                f"[yellow]hf: {escape(schedule.engine())} failed {len(failed)} of {counted(len(taken), 'row')}, "
                f"e.g. {escape(run.errors[failed[0]])}"
            )
        schedule.record(taken, failed, run.engine_errors)
        if schedule.notes and not schedule.finished:
            console.print(f"[yellow]hf: {escape(schedule.notes[-1])}")
    return results
