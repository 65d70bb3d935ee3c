"""LongBench-Write's paper settings, dimensions and judge prompt, read from `longbench_write.yaml`: the one place
they live."""

from __future__ import annotations

import functools

from pydantic import BaseModel, ConfigDict

from ..package_yaml import read_package_yaml
from ..settings_blocks import JudgeSettings as SharedJudgeSettings
from ..settings_blocks import SamplingSettings

SETTINGS_FILE = "longbench_write.yaml"


class GenerationSettings(SamplingSettings):
    max_new_tokens: int


class JudgeSettings(SharedJudgeSettings):
    missing_dimension_fill: float


class PaperSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    source: str
    generation: GenerationSettings
    judge: JudgeSettings
    dimensions: tuple[str, ...]
    score_range: tuple[float, float]
    prompt: str


@functools.cache
def paper_settings() -> PaperSettings:
    return read_package_yaml(__package__, SETTINGS_FILE, PaperSettings)
