"""Backends by name, imported lazily: `hf`, `local`, `ort`, `openai`, `vllm`, `replay`."""

from __future__ import annotations

import importlib

from ..config import ModelSpec
from .base import Backend, Request, Result
from .options import option_parameters, options_problem

BACKENDS = {
    "hf": ("hf_backend", "HFBackend", "hf"),
    "local": ("local", "LocalBackend", "local"),
    "ort": ("ort_backend", "OrtGenAIBackend", "local"),
    "openai": ("openai_backend", "OpenAIBackend", "openai"),
    "vllm": ("vllm_backend", "VLLMBackend", "vllm"),
    "replay": ("replay", "ReplayBackend", None),
}
HEAVY_MODULES = {
    "torch",
    "transformers",
    "accelerate",
    "gguf",
    "vllm",
    "openai",
    "httpx",
    "onnxruntime_genai",
    "onnx",
    "xgrammar",
}


class MissingExtraError(ImportError):
    """A backend's optional dependencies are not installed."""


def backend_class(spec: ModelSpec) -> type:
    """The backend's class, imported without its heavy dependencies (those load when it is created)."""
    if spec.backend not in BACKENDS:
        raise ValueError(f"unknown backend {spec.backend!r} in {spec.name!r}; choose one of {', '.join(BACKENDS)}")
    module_name, class_name, _ = BACKENDS[spec.backend]
    return getattr(importlib.import_module(f"{__name__}.{module_name}"), class_name)


def accepted_options(cls: type) -> set[str] | None:
    """Keyword options a backend's constructor takes, following `**options` passed on to a base class."""
    parameters = option_parameters(cls)
    return None if parameters is None else {p.name for p in parameters}


def check_options(spec: ModelSpec, flag: str = "--model-arg") -> None:
    """Refuse unknown backend options, and options of the wrong type or range, before a run folder is written."""
    cls = backend_class(spec)
    accepted = accepted_options(cls)
    unknown = sorted(set(spec.options) - accepted) if accepted is not None else []
    if unknown:
        raise ValueError(
            f"{flag} {', '.join(unknown)}: not an option of the {spec.backend!r} backend; "
            f"it takes {', '.join(sorted(accepted))}"
        )
    problem = options_problem(cls, spec.options)
    if problem is not None:
        name, what = problem
        given = f"={spec.options[name]!r}" if name in spec.options else ""
        raise ValueError(f"{flag} {name}{given}: {what} (option of the {spec.backend!r} backend)")


def output_neutral_options(backend: str) -> frozenset[str]:
    """Options that change how a backend makes its calls (connection, retries, concurrency), never what they
    return, as the backend declares them (`OUTPUT_NEUTRAL_OPTIONS`); none for a backend this version lacks."""
    if backend not in BACKENDS:
        return frozenset()
    cls = backend_class(ModelSpec(backend=backend, model="-"))
    return frozenset(getattr(cls, "OUTPUT_NEUTRAL_OPTIONS", ()))


def create_backend(spec: ModelSpec) -> Backend:
    _, _, extra = BACKENDS.get(spec.backend, (None, None, None))
    try:
        return backend_class(spec)(spec.model, **spec.options)
    except ModuleNotFoundError as error:
        if extra and (error.name or "").split(".")[0] in HEAVY_MODULES:
            raise MissingExtraError(
                f"backend {spec.backend!r} needs {error.name}: pip install 'longform-eval[{extra}]'"
            ) from error
        raise


__all__ = [
    "BACKENDS",
    "Backend",
    "MissingExtraError",
    "Request",
    "Result",
    "check_options",
    "create_backend",
    "output_neutral_options",
]
