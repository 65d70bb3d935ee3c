"""Continuous batching through transformers' `ContinuousBatchingManager` (transformers >= 5.x, CUDA).

Rows join and leave the running batch on their own; each row is handed to `on_result` the moment it finishes.
Every row's status is checked: a row the engine reports failed, or one that comes back short without EOS or the
token limit, is not a finished generation; its key is returned so that the caller retries it on the static path.

One error inside the engine's loop fails every row still pending (transformers' `_handle_critical_error`): on an
H100 one out-of-memory error took all 256 rows of a pass with it. So rows go in longest prompt first (such an
error shows in the first steps, when little is lost); `hf_passes` plans the engine's memory before the first pass
(`memory_plan`) and decides what each next pass takes.
"""

from __future__ import annotations

import copy
import inspect
import math
import time
from collections.abc import Callable, Sequence
from typing import Any

from ..config import GenerationConfig
from .base import OnResult, Result
from .hf_batching import release_memory, sampling_options
from .memory_plan import PAGE, MemoryPlan

POLL_SECONDS = 1.0
# The engine checks its own estimate of a plan against this share of free memory; the plan uses less (MARGIN) and
# counts more (the MLP, the graphs' pools), so the check passes whenever the plan fits.
ENGINE_MEMORY_SHARE = 0.95


def continuous_support(model: Any, config: GenerationConfig) -> str | None:
    """None when continuous batching can honour `config` with this model; otherwise the reason it cannot."""
    if not hasattr(model, "init_continuous_batching"):
        import transformers

        return f"transformers {transformers.__version__} has no continuous batching"
    if config.stop:
        return "stop strings were given and the continuous engine has no stop-string criterion"
    unsupported = unsupported_processors(model, engine_generation_config(model, config, None))
    if unsupported:
        return f"the continuous engine would drop these logits processors: {', '.join(unsupported)}"
    return None


def unsupported_processors(model: Any, generation_config: Any) -> list[str]:
    """Processors (e.g. the model's own repetition penalty) that continuous batching marks as unsupported."""
    processors = model._get_logits_processor(generation_config)
    return [type(p).__name__ for p in processors if getattr(p, "supports_continuous_batching", None) is False]


def engine_generation_config(model: Any, config: GenerationConfig, tokenizer: Any) -> Any:
    """The model's own generation config with our sampling settings on top, as `generate` merges them."""
    generation = copy.deepcopy(model.generation_config)
    generation.update(**sampling_options(config), max_new_tokens=config.max_new_tokens)
    if tokenizer is not None:
        generation.pad_token_id = tokenizer.pad_token_id
        if generation.eos_token_id is None:
            generation.eos_token_id = tokenizer.eos_token_id
    return generation


def eos_ids(generation_config: Any) -> set[int]:
    eos = generation_config.eos_token_id
    return set() if eos is None else {int(eos)} if isinstance(eos, int) else {int(e) for e in eos}


def engine_fields() -> dict[str, inspect.Parameter]:
    """The fields of the installed transformers' `ContinuousBatchingConfig`."""
    from transformers.generation.configuration_utils import ContinuousBatchingConfig

    return dict(inspect.signature(ContinuousBatchingConfig).parameters)


def page_tokens() -> int:
    """Tokens a cache block holds by default in the installed transformers (`page_size`; `block_size` before 5.2x)."""
    fields = engine_fields()
    for name in ("page_size", "block_size"):
        default = fields[name].default if name in fields else None
        if isinstance(default, int) and default > 0:
            return default
    return PAGE


def plan_options(plan: MemoryPlan) -> dict[str, Any]:
    """The `ContinuousBatchingConfig` fields that carry out a memory plan (those the installed version has)."""
    options = {
        "num_blocks": math.ceil(plan.cache_tokens / page_tokens()),
        "max_batch_tokens": plan.chunk,
        "use_cuda_graph": plan.graphs,
        "max_memory_percent": ENGINE_MEMORY_SHARE,
    }
    fields = engine_fields()
    return {name: value for name, value in options.items() if name in fields}


def start_manager(
    model: Any,
    generation_config: Any,
    prompts: Sequence[list[int]],
    config: GenerationConfig,
    plan: MemoryPlan | None = None,
    **cb,
):
    """A started manager sized for these prompts by `plan`; `cb` are other `ContinuousBatchingConfig` fields (None:
    its default), which override the plan's."""
    from transformers.generation.configuration_utils import ContinuousBatchingConfig

    options = (plan_options(plan) if plan is not None else {}) | {k: v for k, v in cb.items() if v is not None}
    if config.seed is not None:
        options["seed"] = config.seed
    hints = None
    try:
        from transformers.generation.continuous_batching.utils import WorkloadHints

        hints = WorkloadHints(
            max_prompt_length=max(len(p) for p in prompts),
            max_generated_length=config.max_new_tokens,
            num_requests=len(prompts),
        )
    except (ImportError, TypeError):
        pass
    manager = model.init_continuous_batching(
        generation_config=generation_config,
        continuous_batching_config=ContinuousBatchingConfig(**options),
        workload_hints=hints,
    )
    if model.device.type == "cuda" and not getattr(manager, "warmed_up", True):
        manager.warmup()  # captures the CUDA graphs before the first request, as generate_batch does
    manager.start()
    return manager


class ContinuousRun:
    """One pass of rows through a manager. `manager_factory(generation_config, prompts)` returns a started one; each
    finished row's `extra["engine"]` is `engine` (the pass's plan)."""

    def __init__(
        self,
        tokenizer: Any,
        generation_config: Any,
        config: GenerationConfig,
        manager_factory: Callable,
        engine: str = "continuous",
    ):
        self.tokenizer = tokenizer
        self.engine = engine
        self.generation_config = generation_config
        self.config = config
        self.manager_factory = manager_factory
        self.eos = eos_ids(generation_config)
        self.errors: dict[str, str] = {}  # why each failed row failed
        self.engine_errors: dict[str, str] = {}  # the rows the engine failed with an error of its own

    def run(self, prompts: dict[str, list[int]], on_result: OnResult | None) -> tuple[list[Result], list[str]]:
        """(finished results, keys of the rows that failed or never came back)."""
        began = time.perf_counter()
        manager = self.start(prompts)
        if manager is None:
            return [], list(prompts)
        pending = set(prompts)
        done: list[Result] = []
        failed: list[str] = []
        try:
            for key, ids in sorted(prompts.items(), key=lambda item: -len(item[1])):
                manager.add_request(ids, request_id=key, max_new_tokens=self.config.max_new_tokens)
            while pending:
                output = manager.get_result(timeout=POLL_SECONDS)
                if output is None:
                    if not manager.is_running():
                        break
                    continue
                if output.request_id not in pending or not output.is_finished():
                    continue
                pending.discard(output.request_id)
                result = self.result_of(output, len(prompts[output.request_id]), began)
                if result is None:
                    failed.append(output.request_id)
                    self.note_failure(output)
                    continue
                done.append(result)
                if on_result is not None:
                    on_result(result)
        finally:
            stop_manager(manager, hard=bool(pending))
            del manager  # a failed engine keeps its error, whose traceback holds the cache: free it before the next
            release_memory()
        self.errors.update({key: "never came back from the engine" for key in pending})
        return done, failed + sorted(pending)

    def start(self, prompts: dict[str, list[int]]) -> Any:
        """A started manager, or None when it could not start (every row then failed with that error)."""
        try:
            return self.manager_factory(self.generation_config, list(prompts.values()))
        except Exception as error:  # e.g. out of memory while the cache is allocated or the graphs captured
            reason = error_line(error)
        self.errors.update(dict.fromkeys(prompts, reason))
        self.engine_errors.update(dict.fromkeys(prompts, reason))
        release_memory()  # outside the except block, whose traceback holds the half-built manager
        return None

    def note_failure(self, output: Any) -> None:
        if output.error is not None:
            self.errors[output.request_id] = self.engine_errors[output.request_id] = str(output.error)
        else:
            self.errors[output.request_id] = f"came back short ({output.status!s})"

    def result_of(self, output: Any, prompt_tokens: int, began: float) -> Result | None:
        """The row's result, or None when the engine did not finish it (failed, or short without EOS or limit)."""
        status = getattr(output.status, "name", str(output.status))
        if output.error is not None or status != "FINISHED":
            return None
        tokens = [int(t) for t in output.generated_tokens]
        if tokens and tokens[-1] in self.eos:
            finish, kept = "stop", tokens[:-1]
        elif len(tokens) >= self.config.max_new_tokens:
            finish, kept = "length", tokens
        else:
            return None
        lifespan = getattr(output, "lifespan", (-1, -1))
        seconds = lifespan[1] - lifespan[0] if lifespan and min(lifespan) > 0 else time.perf_counter() - began
        return Result(
            key=output.request_id,
            text=self.tokenizer.decode(kept, skip_special_tokens=True),
            finish_reason=finish,
            prompt_tokens=prompt_tokens,
            completion_tokens=len(tokens),
            seconds=seconds,
            extra={"engine": self.engine},
        )


def error_line(error: BaseException) -> str:
    text = str(error).strip()
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def stop_manager(manager: Any, hard: bool) -> None:
    try:
        manager.stop(block=True, timeout=30, hard_stop=hard)
    except TypeError:  # an engine without hard stops
        manager.stop(block=True, timeout=30)
    destroy = getattr(manager, "destroy", None)
    if destroy is not None:
        destroy()
