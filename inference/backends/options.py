"""Types of backend options, checked before a run folder is written (`check_options`).

A backend declares its options as keyword parameters of its constructor; their annotations are the check, e.g.
`max_in_flight: Count = 8`. `--model-arg max_in_flight=-1` is then refused while the command line is read,
not when the backend starts, after config.yaml has been written.
"""

from __future__ import annotations

import inspect
import typing
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, create_model

from ..limits import BACKEND_COUNT

# a number of things: threads, attempts, rows in a batch, ...
Count = Annotated[int, Field(ge=1), AfterValidator(BACKEND_COUNT.check)]
Seed = Annotated[int, Field(ge=0)]
Seconds = Annotated[float, Field(gt=0, allow_inf_nan=False)]
Delay = Annotated[float, Field(ge=0, allow_inf_nan=False)]  # seconds, 0 for none
Share = Annotated[float, Field(gt=0, le=1, allow_inf_nan=False)]  # a share of (GPU) memory, in (0, 1]

STRICT = ConfigDict(extra="forbid", strict=True)  # YAML already typed the values: "8" is not a number of threads


def option_parameters(cls: type) -> list[inspect.Parameter] | None:
    """Keyword options of a backend's constructor, following `**options` passed on to a base class; None if the
    chain ends in `**options` that nothing declares (any option is then accepted)."""
    found: list[inspect.Parameter] = []
    for klass in cls.__mro__:
        if klass is object:
            return None
        if "__init__" not in vars(klass):
            continue
        parameters = list(inspect.signature(vars(klass)["__init__"]).parameters.values())[2:]
        found += [p for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
        if not any(p.kind is p.VAR_KEYWORD for p in parameters):
            return found
    return None


def annotations_of(cls: type) -> dict[str, Any]:
    """The constructors' parameter annotations, evaluated; an annotation that cannot be evaluated is not checked."""
    hints: dict[str, Any] = {}
    for klass in reversed(cls.__mro__):
        init = vars(klass).get("__init__")
        if init is None or klass is object:
            continue
        try:
            hints.update(typing.get_type_hints(init, include_extras=True))
        except Exception:  # a plug-in's annotation naming something not importable here: check its name only
            continue
    return hints


def options_model(cls: type) -> type[BaseModel] | None:
    parameters = option_parameters(cls)
    if parameters is None:
        return None
    hints = annotations_of(cls)
    fields = {p.name: (hints.get(p.name, Any), ... if p.default is p.empty else p.default) for p in parameters}
    return create_model(f"{cls.__name__}Options", __config__=STRICT, **fields)


def options_problem(cls: type, options: dict[str, Any]) -> tuple[str, str] | None:
    """(option, what is wrong) for the first option of the wrong type or out of range, else None."""
    model = options_model(cls)
    if model is None:
        return None
    try:
        model.model_validate(options)
    except ValidationError as error:
        problem = error.errors(include_url=False)[0]
        name = str(problem["loc"][0]) if problem["loc"] else "?"
        return name, problem["msg"]
    return None


__all__ = ["Count", "Delay", "Seconds", "Seed", "Share", "option_parameters", "options_problem"]
