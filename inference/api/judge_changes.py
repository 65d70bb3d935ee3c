"""The judge settings that judging an existing run folder changes; everything else stays as stored."""

from __future__ import annotations

from typing import Any

from ..benchmarks import create_benchmark
from ..runner import RunConfig
from .config_build import (
    backend_spec,
    check_model_found,
    checked_parser,
    constrained_judge,
    judge_samples,
    overridden,
)
from .settings import RunSettings


def judge_changes(stored: RunConfig, judge: str | None, settings: RunSettings, given: set[str]) -> dict[str, Any]:
    """The config.yaml fields to change; `given`: the settings the caller set (the others keep their stored value)."""
    changes: dict[str, Any] = {}
    spec = backend_spec(judge, settings.judge_args, "judge") if judge else None
    check_model_found(spec, "judge")
    if spec:
        changes["judge"] = spec.model_dump(mode="json")
    if spec or "constrained_judge" in given:
        changes["constrained_judge"] = constrained_judge(settings.constrained_judge, spec or stored.judge)
    generation = overridden(
        stored.judge_generation, max_new_tokens=settings.judge_max_new_tokens, temperature=settings.judge_temperature
    )
    if generation != stored.judge_generation:
        changes["judge_generation"] = generation.model_dump(mode="json")
    if settings.judge_samples or generation != stored.judge_generation:
        changes["judge_samples"] = judge_samples(settings.judge_samples or stored.judge_samples, generation)
    if settings.judge_attempts:
        changes["judge_attempts"] = settings.judge_attempts
    if settings.parser:
        benchmark = create_benchmark(stored.benchmark, stored.benchmark_config, stored.benchmark_args)
        changes["parser"] = checked_parser(benchmark, settings.parser)
    if "strip_think" in given and settings.strip_think != stored.strip_think:
        changes["strip_think"] = settings.strip_think
    if settings.judge_name:
        changes["judge_name"] = settings.judge_name
    return changes
