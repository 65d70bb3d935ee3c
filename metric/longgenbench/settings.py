"""LongGenBench's paper settings (generation and judge), read from `longgenbench.yaml`: the one place they live."""

from __future__ import annotations

import functools

from pydantic import BaseModel, ConfigDict

from ..package_yaml import read_package_yaml
from ..settings_blocks import JudgeSettings, SamplingSettings

SETTINGS_FILE = "longgenbench.yaml"


class GenerationSettings(SamplingSettings):
    max_new_tokens: dict[str, int]  # per setting: short, long
    stop: list[str]


class PaperSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    source: str
    generation: GenerationSettings
    judge: JudgeSettings


@functools.cache
def paper_settings() -> PaperSettings:
    return read_package_yaml(__package__, SETTINGS_FILE, PaperSettings)
