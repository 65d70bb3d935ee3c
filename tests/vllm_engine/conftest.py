"""The `vllm:` backend on a real vLLM engine (vLLM's CPU build in CI: `.ci/vllm`, its own venv).

Every test here is marked `vllm`; where vLLM is not installed (the main venv) they are deselected, and the vLLM
stage runs `pytest -m vllm tests/vllm_engine` and fails if none ran. The folder is not named `vllm`: tests/ is on
sys.path, and a folder of that name would import as vLLM itself where vLLM is not installed.

One engine is loaded per session (about a minute on two CPU cores); a test that starts `longform-eval` in a
subprocess loads its own, so there are few of those.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from tiny_qwen import ENGINE_OPTIONS, build_tiny_qwen

MODELS = Path(__file__).resolve().parents[3] / "shared" / "models"  # beside the checkout, as the benchmark data


def vllm_installed() -> bool:
    spec = importlib.util.find_spec("vllm")
    return spec is not None and spec.origin is not None  # a namespace package of that name is not vLLM


def pytest_collection_modifyitems(config, items):
    if vllm_installed():
        return
    marked = [item for item in items if item.get_closest_marker("vllm")]
    if marked:
        config.hook.pytest_deselected(items=marked)
        items[:] = [item for item in items if not item.get_closest_marker("vllm")]


@pytest.fixture(scope="session")
def tiny_qwen(tmp_path_factory) -> Path:
    if not MODELS.is_dir():
        raise RuntimeError(f"the model config and tokenizer are expected in {MODELS} (../shared/models)")
    return build_tiny_qwen(MODELS, tmp_path_factory.mktemp("models") / "tiny-qwen2")


@pytest.fixture(scope="session")
def engine(tiny_qwen):
    """The session's one vLLM engine on the tiny model, through the project's backend."""
    from longform_eval.inference.backends.vllm_backend import VLLMBackend

    backend = VLLMBackend(str(tiny_qwen), **ENGINE_OPTIONS)
    yield backend
    backend.close()
