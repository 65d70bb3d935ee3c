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
    model_validator,
)

from longform_eval.common.errors import ConfigError

from ..environment_secrets import register_environment_secrets
from ..limits import JUDGE_ATTEMPTS, JUDGE_SAMPLES, NEW_TOKENS, ROWS
from ..runner.config import checked_display_name

# Strict: `limit=True` or `limit="3"` is a mistake to name, not a 1 or a 3 to guess.
Rows = Annotated[StrictInt, Field(gt=0), AfterValidator(ROWS.check)]
Tokens = Annotated[StrictInt, Field(gt=0), AfterValidator(NEW_TOKENS.check)]
Temperature = Annotated[float, Field(ge=0.0, allow_inf_nan=False)]


class RunSettings(BaseModel):
    """Every setting of `run` / `generate` besides the benchmark, the model, the judge and the folder.

    None means "the benchmark's paper setting" (or the backend's default)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    limit: Rows | None = Field(None, description="the first N rows of the benchmark config (default: all rows)")
    per_group: Rows | None = Field(
        None, description="the first N rows of each group: task, scenario, ... (default: all rows)"
    )
    subcategory: tuple[str, ...] = Field(
        (),
        description="keep only the rows whose group or subgroup (task, subcategory, scenario, ...) is this; several "
        "for several (default: every group)",
    )
    shortest: StrictBool = Field(
        False,
        description="with a row limit: take the rows quickest to evaluate first (shortest prompt; LongGenBench: "
        "earliest check, so that a short output is scored) instead of the first ones",
    )
    max_new_tokens: Tokens | None = Field(
        None,
        description="new tokens per answer (default: the paper's limit for the benchmark config; HelloBench's main "
        "configs: upstream run.py's limit for the model, matched on the model's name, and its most common limit for a "
        "model it did not run)",
    )
    temperature: Temperature | None = Field(
        None, description="the model's sampling temperature (default: the paper's for the benchmark)"
    )
    chat_template: StrictBool | None = Field(
        None, description="apply the model's chat template (default: as the paper did; a change is a deviation)"
    )
    judge_max_new_tokens: Tokens | None = Field(
        None, description="the judge's max new tokens per reply (default: the paper's judge limit for the benchmark)"
    )
    judge_temperature: Temperature | None = Field(
        None, description="the judge's sampling temperature (default: the paper's judge temperature)"
    )
    judge_attempts: Annotated[StrictInt, Field(ge=1), AfterValidator(JUDGE_ATTEMPTS.check)] | None = Field(
        None, description="attempts per judge call until its reply parses (default: the paper's)"
    )
    judge_samples: Annotated[StrictInt, Field(ge=1), AfterValidator(JUDGE_SAMPLES.check)] | None = Field(
        None,
        description="judge every call K times with seeds seed, seed+1, ...; the row score is the mean of its scored "
        "samples, and scores.json says how much of each figure's variance is the judge's (default: 1)",
    )
    parser: str | None = Field(
        None,
        description="judge output parser (default: the paper's, e.g. upstream; variants per benchmark: lenient, "
        "strict, ...)",
    )
    constrained_judge: StrictBool | None = Field(
        None,
        description="constrain judge replies to the benchmark's JSON schema (default: on for local:, off otherwise; "
        "on is a deviation from the paper)",
    )
    strip_think: StrictBool = Field(
        True, description="strip <think>...</think> from answers before judging and scoring (default: True)"
    )
    baseline: str | None = Field(
        None,
        description="pairwise benchmarks: the answers to compare with, 'reference' (the dataset's reference answers) "
        "or a run folder of another model (default: none; a pairwise run needs one)",
    )
    benchmark_args: dict[str, Any] = Field({}, description="benchmark options, typed and checked (default: none)")
    model_args: dict[str, Any] = Field({}, description="the model's backend options (default: none)")
    judge_args: dict[str, Any] = Field({}, description="the judge's backend options (default: none)")
    dataset: str | None = Field(
        None, description="dataset folder or Hub repo id (default: built from the source files)"
    )
    dataset_revision: str | None = Field(
        None, description="Hub revision (branch, tag or commit) of the dataset (default: the Hub's default branch)"
    )
    source: str | None = Field(
        None,
        description="source folder for the default dataset build, as in `longform-eval build` (default: "
        "$LONGFORM_EVAL_SOURCE/NAME if set, else a download of the pinned upstream commit)",
    )
    force: StrictBool = Field(
        False,
        description="continue a run folder even if its configuration changed: calls of a new model, judge or "
        "setting are made beside the old records (default: refuse)",
    )
    # Display names are labels, never part of a record's key.
    name: str | None = Field(None, description="the model's display name in tables and plots (default: BACKEND:MODEL)")
    judge_name: str | None = Field(
        None, description="the judge's display name in tables and plots (default: BACKEND:MODEL)"
    )

    @model_validator(mode="before")
    @classmethod
    def secrets_first(cls, values: Any) -> Any:
        """The secrets these settings will use, registered before any is checked, printed or written."""
        if isinstance(values, dict):
            register_environment_secrets([values.get("model_args"), values.get("judge_args")])
        return values

    @field_validator("name", "judge_name")
    @classmethod
    def a_label(cls, value: str | None) -> str | None:
        """One line of text people read in tables (`display_name_problem`)."""
        return checked_display_name(value)

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
