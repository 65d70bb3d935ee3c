"""LongBench-Write's paper settings, dimensions and judge prompt, read from `longbench_write.yaml`: the one place
they live."""

from __future__ import annotations

import functools

from pydantic import BaseModel, ConfigDict

from ..package_yaml import read_package_yaml

SETTINGS_FILE = "longbench_write.yaml"


class GenerationSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    chat_template: bool
    temperature: float
    top_p: float | None
    top_k: int | None
    seed: int | None
    max_new_tokens: int


class JudgeSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    model: str
    chat_template: bool
    temperature: float
    top_p: float | None
    top_k: int | None
    max_tokens: int
    seed: int | None
    attempts: int
    parser: str
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
