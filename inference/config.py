"""Typed configuration: model names, generation settings, run settings."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from .limits import NEW_TOKENS
from .url_secrets import mask_url_secrets, url_secret_parts

SECRET_OPTION = re.compile(r"(^|_)(api_?key|token|secret|password|passwd|auth|authorization|credentials?)$", re.I)
SAFE_URL = "put the URL in an environment variable and name it (openai backend: base_url_env=NAME)"


def refuse_secrets(options: dict[str, Any]) -> None:
    """Options are written to config.yaml, so a secret among them is refused before anything is written."""
    for key, value in options.items():
        shown = mask_url_secrets(str(key))
        if SECRET_OPTION.search(str(key)):
            raise ValueError(
                f"option {shown!r} looks like a secret; secrets are read only from the environment "
                "(e.g. OPENAI_API_KEY, or api_key_env=NAME of the variable) and never written to a run folder"
            )
        refuse_secret_urls(f"option {shown!r}", {key: value})


def refuse_secret_urls(what: str, value: Any) -> None:
    """A URL with userinfo, a query or a fragment may hold a credential: refused, and shown masked."""
    for text in strings_in(value):
        parts = url_secret_parts(text)
        if parts:
            raise ValueError(
                f"{what}: {mask_url_secrets(text)!r} carries {' and '.join(parts)}, which may hold a secret and "
                f"would be written to the run folder; {SAFE_URL}"
            )


def strings_in(value: Any) -> Iterator[str]:
    """Every string in an option value, nested YAML mappings and lists included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from strings_in(key)
            yield from strings_in(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from strings_in(item)


class GenerationConfig(BaseModel):
    """Sampling settings, recorded in every run folder."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_new_tokens: Annotated[int, Field(gt=0), AfterValidator(NEW_TOKENS.check)] = 1024
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

    @model_validator(mode="before")
    @classmethod
    def no_secrets(cls, data: Any) -> Any:
        """Checked on the whole mapping: a failed field would echo its value in the error."""
        if isinstance(data, dict):
            refuse_secret_urls("model", data.get("model"))
            if isinstance(data.get("options"), dict):
                refuse_secrets(data["options"])
        return data

    @classmethod
    def parse(cls, name: str, options: dict[str, Any] | None = None) -> ModelSpec:
        backend, sep, model = name.partition(":")
        if not sep or not backend or not model:
            raise ValueError(f"model {name!r}: expected BACKEND:MODEL, e.g. openai:gpt-4o-mini or local:default")
        refuse_secret_urls("model", name)  # before pydantic, whose errors would echo the value
        refuse_secrets(options or {})
        return cls(backend=backend, model=model, options=options or {})

    @property
    def name(self) -> str:
        return f"{self.backend}:{self.model}"

    @property
    def replayed(self) -> bool:
        """Answered from recorded completions (`replay:`): no model is asked, and asking again gives the same reply."""
        return self.backend == "replay"

    def identity(self, display_name: str | None) -> str:
        """The model a run is compared with the paper as (`deviations`): for recorded completions, the model that
        made them when it is named (`--name`), else what comes after `BACKEND:`. Defaults never depend on it: a
        display name is a label, and renaming a run changes no setting."""
        return display_name if self.replayed and display_name else self.model


def parse_model_args(pairs: list[str] | None, flag: str = "--model-arg") -> dict[str, Any]:
    """`--model-arg k=v` values, with YAML typing of v (numbers, booleans)."""
    import yaml

    from .yaml_files import OversizedYaml, load_yaml

    options: dict[str, Any] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"{flag} {mask_url_secrets(pair)!r}: expected KEY=VALUE")
        try:
            options[key.strip()] = load_yaml(value)
        except OversizedYaml as error:
            raise ValueError(f"{flag} {mask_url_secrets(key)!r}: the value is refused: {error}") from None
        except yaml.YAMLError:
            raise ValueError(
                f"{flag} {mask_url_secrets(pair)!r}: the value is not valid YAML (quote a string that looks like it)"
            ) from None
    return options


def options_from(pairs: list[str] | None, file: Path | None, role: str = "model") -> dict[str, Any]:
    """Backend options as the CLI and the Space take them: `--ROLE-config FILE` (a YAML mapping), then
    `--ROLE-arg KEY=VALUE` over it."""
    from .yaml_files import options_file

    options = options_file(file, f"--{role}-config") if file else {}
    options.update(parse_model_args(pairs, f"--{role}-arg"))
    return options
