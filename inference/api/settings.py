"""The keyword settings of a run (the Python API's, and the CLI's flags mapped onto them), typed and checked."""

from __future__ import annotations

import math
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    ValidationError,
    field_validator,
)

from longform_eval.common.errors import ConfigError

from ..limits import JUDGE_ATTEMPTS, JUDGE_SAMPLES, NEW_TOKENS, ROWS

# Strict: `limit=True` or `limit="3"` is a mistake to name, not a 1 or a 3 to guess.
Rows = Annotated[StrictInt, Field(gt=0), AfterValidator(ROWS.check)]
Tokens = Annotated[StrictInt, Field(gt=0), AfterValidator(NEW_TOKENS.check)]
Temperature = Annotated[float, Field(ge=0.0, allow_inf_nan=False)]


class RunSettings(BaseModel):
    """Every setting of `run` / `generate` besides the benchmark, the model, the judge and the folder.

    None means "the benchmark's paper setting" (or the backend's default)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    limit: Rows | None = None
    per_group: Rows | None = None
    subcategory: tuple[str, ...] = ()
    shortest: StrictBool = False
    max_new_tokens: Tokens | None = None
    temperature: Temperature | None = None
    chat_template: StrictBool | None = None
    judge_max_new_tokens: Tokens | None = None
    judge_temperature: Temperature | None = None
    judge_attempts: Annotated[StrictInt, Field(ge=1), AfterValidator(JUDGE_ATTEMPTS.check)] | None = None
    judge_samples: Annotated[StrictInt, Field(ge=1), AfterValidator(JUDGE_SAMPLES.check)] | None = None
    parser: str | None = None
    constrained_judge: StrictBool | None = None
    strip_think: StrictBool = True
    baseline: str | None = None
    benchmark_args: dict[str, Any] = {}
    model_args: dict[str, Any] = {}
    judge_args: dict[str, Any] = {}
    dataset: str | None = None
    dataset_revision: str | None = None
    source: str | None = None
    force: StrictBool = False
    name: str | None = None  # the model's display name (RunConfig.name); a label, never part of a record's key
    judge_name: str | None = None  # the judge's display name (RunConfig.judge_name)

    @field_validator("name", "judge_name")
    @classmethod
    def a_label(cls, value: str | None) -> str | None:
        """One line of text people read in tables: not empty, no line break."""
        if value is not None and (not value.strip() or any(c in value for c in "\r\n")):
            raise ValueError("expected a one-line label that is not empty")
        return value

    @field_validator("subcategory", mode="before")
    @classmethod
    def one_or_many(cls, value: Any) -> Any:
        return (value,) if isinstance(value, str) else value

    @field_validator("dataset", "source", mode="before")
    @classmethod
    def no_url(cls, value: Any) -> Any:
        """A folder or a Hub repo id; a URL is refused unrepeated (it may hold a secret)."""
        if value is not None and "://" in str(value):
            raise ValueError("expected a local folder or a Hub repo id, got a URL (not repeated: it may hold a secret)")
        return None if value is None else str(value)


JUDGE_SETTINGS = (
    "judge_max_new_tokens",
    "judge_temperature",
    "judge_attempts",
    "judge_samples",
    "parser",
    "constrained_judge",
    "strip_think",
    "judge_args",
    "judge_name",
    "force",
)


def refused(field: str, message: str, subject: str | None = None) -> ConfigError:
    """A ConfigError for setting `field`; `subject` is the part of it refused (an option name, a value), if any."""
    return ConfigError(field, message, subject)


def settings_from(values: dict[str, Any], allowed: tuple[str, ...] | None = None) -> RunSettings:
    """Keyword settings -> RunSettings; an unknown keyword or a bad value is a ConfigError naming the setting."""
    unknown = [name for name in values if name not in (allowed or RunSettings.model_fields)]
    if unknown:
        known = ", ".join(allowed or RunSettings.model_fields)
        raise refused(unknown[0], f"not a setting here; the settings are {known}")
    try:
        return RunSettings.model_validate(values)
    except ValidationError as error:
        problem = error.errors(include_url=False)[0]
        field = str(problem["loc"][0]) if problem["loc"] else "settings"
        given = values.get(field)
        shown = repr(given) if isinstance(given, (int, float, bool)) and not _nan(given) else None
        raise refused(field, problem["msg"].removeprefix("Value error, "), shown) from None


def _nan(value: Any) -> bool:
    return isinstance(value, float) and not math.isfinite(value)


__all__ = ["JUDGE_SETTINGS", "RunSettings", "refused", "settings_from"]
