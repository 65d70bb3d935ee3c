"""Typed configuration: model names, generation settings, run settings."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator

SECRET_OPTION = re.compile(r"(^|_)(api_?key|token|secret|password|passwd|auth|authorization|credentials?)$", re.I)


def refuse_secrets(options: dict[str, Any]) -> None:
    """Options are written to config.yaml, so a secret among them is refused before anything is written."""
    for key, value in options.items():
        if SECRET_OPTION.search(key):
            raise ValueError(
                f"option {key!r} looks like a secret; secrets are read only from the environment "
                "(e.g. OPENAI_API_KEY, or api_key_env=NAME of the variable) and never written to a run folder"
            )
        if isinstance(value, str) and "://" in value and urlsplit(value).password:
            raise ValueError(f"option {key!r}: the URL carries a password; put credentials in the environment")


class GenerationConfig(BaseModel):
    """Sampling settings, recorded in every run folder."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_new_tokens: int = Field(1024, gt=0)
    temperature: float = Field(0.0, ge=0.0)
    top_p: float | None = Field(1.0, gt=0.0, le=1.0)  # None: the model's own default (its generation_config)
    top_k: int | None = Field(None, gt=0)  # None: the model's own default
    seed: int | None = 0
    stop: tuple[str, ...] = ()
    chat_template: bool = True


class ModelSpec(BaseModel):
    """`BACKEND:MODEL` (e.g. `vllm:/models/Llama-3.1-8B-Instruct`, `openai:gpt-4o-mini`, `local:default`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    backend: str
    model: str
    options: dict[str, Any] = Field(default_factory=dict)

    @field_validator("options")
    @classmethod
    def no_secrets(cls, options: dict[str, Any]) -> dict[str, Any]:
        refuse_secrets(options)
        return options

    @classmethod
    def parse(cls, name: str, options: dict[str, Any] | None = None) -> ModelSpec:
        backend, sep, model = name.partition(":")
        if not sep or not backend or not model:
            raise ValueError(f"model {name!r}: expected BACKEND:MODEL, e.g. openai:gpt-4o-mini or local:default")
        refuse_secrets(options or {})  # before pydantic, whose errors would echo the value
        return cls(backend=backend, model=model, options=options or {})

    @property
    def name(self) -> str:
        return f"{self.backend}:{self.model}"


def parse_model_args(pairs: list[str] | None, flag: str = "--model-arg") -> dict[str, Any]:
    """`--model-arg k=v` values, with YAML typing of v (numbers, booleans)."""
    import yaml

    options: dict[str, Any] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"{flag} {pair!r}: expected KEY=VALUE")
        options[key.strip()] = yaml.safe_load(value)
    return options
