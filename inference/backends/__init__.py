"""Backends by name, imported lazily: `hf`, `local`, `ort`, `openai`, `vllm`, `replay`."""

from __future__ import annotations

import importlib
import inspect

from ..config import ModelSpec
from .base import Backend, Request, Result

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
    names: set[str] = set()
    for klass in cls.__mro__:
        if klass is object:
            return None
        if "__init__" not in vars(klass):
            continue
        parameters = list(inspect.signature(vars(klass)["__init__"]).parameters.values())[2:]
        names.update(p.name for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))
        if not any(p.kind is p.VAR_KEYWORD for p in parameters):
            return names
    return None


def check_options(spec: ModelSpec, flag: str = "--model-arg") -> None:
    """Refuse unknown backend options before a run folder is written."""
    accepted = accepted_options(backend_class(spec))
    unknown = sorted(set(spec.options) - accepted) if accepted is not None else []
    if unknown:
        raise ValueError(
            f"{flag} {', '.join(unknown)}: not an option of the {spec.backend!r} backend; "
            f"it takes {', '.join(sorted(accepted))}"
        )


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


__all__ = ["BACKENDS", "Backend", "MissingExtraError", "Request", "Result", "check_options", "create_backend"]
