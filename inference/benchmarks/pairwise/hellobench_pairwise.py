"""HelloBench prompts judged the arena-hard way: the model's answer against a baseline run's, in both orders.

The baseline is a run folder of HelloBench answers, e.g. GPT-4o's released responses imported as a run
(`longform-eval import-generations HelloBench/results/generations/main_exp/gpt4o_0806 --out runs/gpt4o`, from a
clone of Quehry/HelloBench).
Generation follows HelloBench's paper settings.
"""

from __future__ import annotations

from pydantic import Field, field_validator

from ...config import GenerationConfig
from ..hellobench import HelloBench
from .baseline import REFERENCE, checked_baseline
from .common import PairwiseArgs, PairwiseBenchmark


class HelloBenchPairwiseArgs(PairwiseArgs):
    baseline: str | None = Field(None, description="a HelloBench run folder, e.g. released responses imported")

    @field_validator("baseline")
    @classmethod
    def known_baseline(cls, value: str | None) -> str | None:
        if value == REFERENCE:
            raise ValueError(
                "hellobench-pairwise: HelloBench has no reference answers; give a run folder, e.g. the released "
                "GPT-4o responses of a clone of Quehry/HelloBench: longform-eval import-generations "
                "HelloBench/results/generations/main_exp/gpt4o_0806 --out runs/gpt4o, then --baseline runs/gpt4o"
            )
        return checked_baseline(value)


class HelloBenchPairwise(PairwiseBenchmark):
    name = "hellobench-pairwise"
    configs = HelloBench.configs
    default_config = HelloBench.default_config
    Args = HelloBenchPairwiseArgs
    group_field = "task"
    subgroup_fields = ("subcategory",)
    text_field = "instruction"
    baseline_benchmarks = ("hellobench", "hellobench-pairwise")
    same_config_baseline = False  # HelloBench ids are the same in every config that holds the prompt

    def generation_settings(self) -> GenerationConfig:
        return HelloBench(self.config).paper_settings().generation
