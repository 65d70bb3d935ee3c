"""The run's configuration (config.yaml): everything needed to reproduce it."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from longform_eval.common.errors import LongformEvalError
from longform_eval.common.shown import label_problem

from ..backends import output_neutral_options
from ..config import GenerationConfig, ModelSpec
from ..limits import JUDGE_ATTEMPTS, JUDGE_SAMPLES
from ..secret_values import find_secret
from .schema import SCHEMA_VERSION, config_hash

# judge_samples: raising it adds samples beside the old ones, lowering it leaves some unused; neither changes a record.
# name and judge_name are labels for people: renaming a run changes no record.
IGNORED_ON_RESUME = {"package_version", "engine", "judge_engine", "judge_samples", "name", "judge_name"}
ROLES = ("model", "judge")  # the backend specs, compared without their output-neutral options
# What only the judgements depend on: these bind once a judgement is written, the other fields once a generation is.
JUDGE_FIELDS = {
    "judge",
    "judge_generation",
    "judge_attempts",
    "judge_samples",
    "parser",
    "strip_think",
    "constrained_judge",
}


class RunConfigMismatch(LongformEvalError, ValueError):
    """Records already written bind other settings (`fields`) than the ones given. With `advise`, the message ends
    with the way out: as a Python caller takes it (`force=True`), and in `command_line()` as the CLI's flags say it."""

    PYTHON_ADVICE = "Use another out folder, or force=True to add records of the new configuration beside the old."
    CLI_ADVICE = "Use another --out folder, or --force to add records of the new configuration beside the old."

    def __init__(self, fields: list[str], message: str, advise: bool = False):
        self.fields, self.problem, self.advise = fields, message, advise
        super().__init__(f"{message} {self.PYTHON_ADVICE}" if advise else message)

    def command_line(self) -> str:
        return f"{self.problem} {self.CLI_ADVICE}" if self.advise else self.problem


def display_name_problem(value: str) -> str | None:
    """Why `value` is no display name: empty, more than one line, a control character (`shown.label_problem`), or a
    secret in use (a key pasted as a name would be printed and written everywhere the name is)."""
    problem = label_problem(value)
    if problem is None and find_secret(value) is not None:
        return "expected a label, got text holding a secret in use (an API key or token); not repeated"
    return problem


def checked_display_name(value: str | None) -> str | None:
    """`value` if it is None or a display name; a ValueError saying why not (for pydantic, which names the field)."""
    problem = None if value is None else display_name_problem(value)
    if problem:
        raise ValueError(problem)
    return value


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
    engine: str | None = None  # the generation engine the backend used (hf: continuous or static; vllm: version...)
    judge: ModelSpec | None = None
    judge_engine: str | None = None  # the judge's engine, as `engine` (vllm: how compact JSON was asked for)
    judge_generation: GenerationConfig
    judge_attempts: Annotated[int, Field(ge=1), AfterValidator(JUDGE_ATTEMPTS.check)] = 1
    # judge calls per judgement, seeds seed, seed + 1, ... (judge noise)
    judge_samples: Annotated[int, Field(ge=1), AfterValidator(JUDGE_SAMPLES.check)] = 1
    constrained_judge: bool = False  # judge replies constrained to the benchmark's JSON schema
    parser: str = "upstream"
    strip_think: bool = True
    package_version: str = ""
    # display names (`--name`, `--judge-name`), shown in place of `model_id` and the judge's BACKEND:MODEL; checked
    # wherever a config comes from (flags, the API, a config.yaml, a Hub copy)
    name: Annotated[str | None, AfterValidator(checked_display_name)] = None
    judge_name: Annotated[str | None, AfterValidator(checked_display_name)] = None

    @property
    def model_label(self) -> str:
        """The model as people read it: its display name, else `model_id`."""
        return self.name or self.model_id

    @property
    def judge_label(self) -> str | None:
        """The judge as people read it: its display name, else its BACKEND:MODEL (None without a judge)."""
        return self.judge_name or (self.judge.name if self.judge else None)

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
        """The fields that differ from a stored config.yaml; the backends' output-neutral options (connection,
        retries, concurrency, timeouts) are not compared: changing them changes no record."""
        new, old = comparable(self.model_dump(mode="json")), comparable(stored)
        return sorted(
            k
            for k in new
            if k not in IGNORED_ON_RESUME and old.get(k) != new[k] and not (k == "judge" and old.get(k) is None)
        )


def bound_fields(changed: list[str], generated: bool, judged: bool) -> list[str]:
    """The changed fields that records already written depend on: a judge-side field once a judgement exists, any
    other once a generation (or a judgement) exists."""
    return [field for field in changed if (judged if field in JUDGE_FIELDS else generated or judged)]


def comparable(config: dict[str, Any]) -> dict[str, Any]:
    """A config's fields with the model's and the judge's output-neutral options left out."""
    return config | {role: without_neutral_options(config.get(role)) for role in ROLES}


def without_neutral_options(spec: Any) -> Any:
    if not isinstance(spec, dict) or not isinstance(spec.get("options"), dict):
        return spec
    neutral = output_neutral_options(str(spec.get("backend")))
    return spec | {"options": {k: v for k, v in spec["options"].items() if k not in neutral}}
