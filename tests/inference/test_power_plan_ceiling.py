"""A one-reference plan bounds the other model's SE by the most its scale allows: what it prints is a ceiling and
says so, with how far the bound is above the reference's own SE (issue 47.2)."""

from __future__ import annotations

import math
from types import SimpleNamespace

from longform_eval.inference.report.power_plan import PowerReference, power_lines
from longform_eval.metric.uncertainty import independent_se, prompts_needed


def one_reference(se: float, bound: float) -> PowerReference:
    run = SimpleNamespace(
        label="runs/qwen2",
        scores=SimpleNamespace(benchmark="hellobench", config="all"),
        units=SimpleNamespace(unit="prompt"),
    )
    return PowerReference([run], "overall", independent_se(se), 640, False, 1.0, 5.0, 5, 1.0, None, bound)


def test_a_one_reference_plan_says_it_is_a_ceiling_and_by_how_much():
    config = SimpleNamespace(benchmark="hellobench", benchmark_config="all")
    lines = power_lines(one_reference(1.1, 3.3), config, 647)
    printed = "\n".join(lines)
    ceiling = prompts_needed(5.0, math.hypot(1.1, 3.3), 640, paired=False, strata=5).prompts
    assert f"needs at most {ceiling:,} prompts" in printed
    assert "a ceiling, not an estimate" in printed and "3.0x this one's" in printed
    assert "a size below the ceiling that keeps its word" in printed and "no promise" in printed
