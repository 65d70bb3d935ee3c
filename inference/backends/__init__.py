"""Backends by name, imported lazily: `hf`, `local`, `openai`, `vllm`, `replay`."""

from __future__ import annotations

import importlib

from ..config import ModelSpec
from .base import Backend, Request, Result

BACKENDS = {
    "hf": ("hf_backend", "HFBackend", "hf"),
    "local": ("local", "LocalBackend", "local"),
    "openai": ("openai_backend", "OpenAIBackend", "openai"),
    "vllm": ("vllm_backend", "VLLMBackend", "vllm"),
    "replay": ("replay", "ReplayBackend", None),
}
HEAVY_MODULES = {"torch", "transformers", "accelerate", "gguf", "vllm", "openai", "httpx"}


class MissingExtraError(ImportError):
    """A backend's optional dependencies are not installed."""


def create_backend(spec: ModelSpec) -> Backend:
    if spec.backend not in BACKENDS:
        raise ValueError(f"unknown backend {spec.backend!r} in {spec.name!r}; choose one of {', '.join(BACKENDS)}")
    module_name, class_name, extra = BACKENDS[spec.backend]
    try:
        module = importlib.import_module(f"{__name__}.{module_name}")
        return getattr(module, class_name)(spec.model, **spec.options)
    except ModuleNotFoundError as error:
        if extra and (error.name or "").split(".")[0] in HEAVY_MODULES:
            raise MissingExtraError(
                f"backend {spec.backend!r} needs {error.name}: pip install 'longform-eval[{extra}]'"
            ) from error
        raise


__all__ = ["BACKENDS", "Backend", "MissingExtraError", "Request", "Result", "create_backend"]
