"""Backends by name, from their declarations (`longform_eval.registry`: `hf`, `local`, `ort`, `openai`, `vllm`,
`replay` and any other package's), each imported when used; the packages one needs are checked when it is created."""

from __future__ import annotations

from longform_eval.registry import BackendDeclaration, backend_declarations
from longform_eval.registry.requirements import MissingExtraError, check_requirements, missing_message

from ..config import ModelSpec
from .base import Backend, Request, Result
from .checked import BackendReplyError, CheckedBackend
from .options import option_parameters, options_problem


def declaration_of(spec: ModelSpec) -> BackendDeclaration:
    declarations = backend_declarations()
    if spec.backend not in declarations:
        choices = ", ".join(declarations)
        raise ValueError(f"unknown backend {spec.backend!r} in {spec.name!r}; choose one of {choices}")
    return declarations[spec.backend]


def backend_class(spec: ModelSpec) -> type:
    """The backend's class, imported without its heavy dependencies (those load when it is created)."""
    return declaration_of(spec).load_backend()


def accepted_options(cls: type) -> set[str] | None:
    """Keyword options a backend's constructor takes, following `**options` passed on to a base class."""
    parameters = option_parameters(cls)
    return None if parameters is None else {p.name for p in parameters}


def option_problem(spec: ModelSpec) -> tuple[str, str] | None:
    """(the options refused, why) for unknown backend options or options of the wrong type or range; None if fine."""
    cls = backend_class(spec)
    accepted = accepted_options(cls)
    unknown = sorted(set(spec.options) - accepted) if accepted is not None else []
    if unknown:
        return ", ".join(
            unknown
        ), f"not an option of the {spec.backend!r} backend; it takes {', '.join(sorted(accepted))}"
    problem = options_problem(cls, spec.options)
    if problem is None:
        return None
    name, what = problem
    given = f"={spec.options[name]!r}" if name in spec.options else ""
    return f"{name}{given}", f"{what} (option of the {spec.backend!r} backend)"


def model_problem(spec: ModelSpec) -> str | None:
    """What is wrong with the model a backend is given, found without loading it (a backend that can tell declares
    `model_problem(model)`, e.g. replay: the file of recorded completions must exist); None if nothing is."""
    check = getattr(backend_class(spec), "model_problem", None)
    return check(spec.model) if check is not None else None


def check_options(spec: ModelSpec, flag: str = "--model-arg") -> None:
    """Refuse unknown backend options, and options of the wrong type or range, before a run folder is written."""
    problem = option_problem(spec)
    if problem is not None:
        raise ValueError(f"{flag} {problem[0]}: {problem[1]}")


def output_neutral_options(backend: str) -> frozenset[str]:
    """Options that change how a backend makes its calls (connection, retries, concurrency), never what they
    return, as the backend declares them (`OUTPUT_NEUTRAL_OPTIONS`); none for a backend this version lacks."""
    if backend not in backend_declarations():
        return frozenset()
    cls = backend_class(ModelSpec(backend=backend, model="-"))
    return frozenset(getattr(cls, "OUTPUT_NEUTRAL_OPTIONS", ()))


def replays_recorded(backend: str) -> bool:
    """Whether the backend answers with recorded completions (`REPLAYS_RECORDED`), so that no sampling setting
    changes what it returns; False for a backend this version lacks."""
    if backend not in backend_declarations():
        return False
    return bool(getattr(backend_class(ModelSpec(backend=backend, model="-")), "REPLAYS_RECORDED", False))


def check_installed(spec: ModelSpec) -> None:
    """A MissingExtraError (what is missing, then how to install it) if a package the backend requires is missing
    or older than declared."""
    check_requirements(declaration_of(spec))


def create_backend(spec: ModelSpec) -> Backend:
    """The backend `spec` names, once the packages its declaration requires are installed at their minimum versions;
    its results are checked against its requests (`checked.CheckedBackend`)."""
    declaration = declaration_of(spec)
    check_requirements(declaration)
    try:
        return CheckedBackend(declaration.load_backend()(spec.model, **spec.options))
    except ModuleNotFoundError as error:  # a package its declared ones need but did not bring
        if declaration.requires and not (error.name or "").startswith("longform_eval"):
            raise MissingExtraError(missing_message(declaration, str(error.name))) from error
        raise


__all__ = [
    "Backend",
    "BackendReplyError",
    "MissingExtraError",
    "Request",
    "Result",
    "backend_class",
    "check_installed",
    "check_options",
    "model_problem",
    "option_problem",
    "create_backend",
    "output_neutral_options",
    "replays_recorded",
]
