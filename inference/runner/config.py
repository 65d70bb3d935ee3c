"""The run's configuration (config.yaml): everything needed to reproduce it."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from typing import Any

from pydantic import BaseModel, ConfigDict

from ..config import GenerationConfig, ModelSpec
from .schema import SCHEMA_VERSION, config_hash

IGNORED_ON_RESUME = {"package_version", "engine"}


class RunConfigMismatch(ValueError):
    pass


def package_version() -> str:
    try:
        return version("longform-eval")
    except PackageNotFoundError:
        return "unknown"


class RunConfig(BaseModel):
    """Which rows (benchmark, config, dataset, selection), who generates and judges, and how."""

    model_config = ConfigDict(extra="forbid")

    schema_version: int = SCHEMA_VERSION
    benchmark: str
    benchmark_config: str
    benchmark_args: dict[str, Any] = {}
    dataset: str | None = None
    dataset_revision: str | None = None
    source: str | None = None
    selection: dict[str, Any] = {}
    dataset_hash: str = ""
    model: ModelSpec | None = None
    imported_from: str | None = None
    generation: GenerationConfig
    engine: str | None = None  # the generation engine the backend used (hf: continuous or static)
    judge: ModelSpec | None = None
    judge_generation: GenerationConfig
    judge_attempts: int = 1
    constrained_judge: bool = False  # judge replies constrained to the benchmark's JSON schema
    parser: str = "upstream"
    strip_think: bool = True
    package_version: str = ""

    @property
    def model_id(self) -> str:
        if self.model is not None:
            return self.model.name
        return f"imported:{self.imported_from}" if self.imported_from else "imported"

    @property
    def generation_hash(self) -> str:
        return config_hash(self.generation.model_dump(mode="json"))

    @property
    def judge_hash(self) -> str:
        """Judgements made with other sampling, another parser or other think handling are other records."""
        parts = [self.judge_generation.model_dump(mode="json"), self.parser, self.strip_think]
        return config_hash(*parts, *(["constrained"] if self.constrained_judge else []))

    def changed_fields(self, stored: dict[str, Any]) -> list[str]:
        new = self.model_dump(mode="json")
        return sorted(
            k
            for k in new
            if k not in IGNORED_ON_RESUME and stored.get(k) != new[k] and not (k == "judge" and stored.get(k) is None)
        )
