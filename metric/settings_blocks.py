"""The typed blocks that a metric's settings file shares with the others: sampling, and the judge call."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class SamplingSettings(BaseModel):
    """How a paper sampled (null: not set upstream, the model's own default)."""

    model_config = ConfigDict(extra="forbid")

    chat_template: bool
    temperature: float
    top_p: float | None
    top_k: int | None
    seed: int | None


class JudgeSettings(SamplingSettings):
    """The paper's judge call: its model, length, attempts and output parser."""

    model: str
    max_tokens: int
    attempts: int
    parser: str
