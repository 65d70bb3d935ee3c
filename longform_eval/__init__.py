"""longform-eval: long-form generation benchmarks, their scorers and a runner, on the Hugging Face stack.

The Python API (docs/python-api.md) is imported on first use, so that `import longform_eval.metric` stays light:

    import longform_eval as le
    result = le.run(benchmark="hellobench:chat", model="replay:a.jsonl", judge="replay:v.jsonl", out="runs/x")
"""

from __future__ import annotations

import importlib
from typing import Any

API_MODULE = "longform_eval.inference.api"
API = ("run", "generate", "judge", "score", "open_run", "compare", "RunResult", "Comparisons")
ERRORS_MODULE = "longform_eval.common.errors"
ERRORS = ("ConfigError",)

__all__ = [*API, *ERRORS]


def __getattr__(name: str) -> Any:
    if name in API:
        return getattr(importlib.import_module(API_MODULE), name)
    if name in ERRORS:
        return getattr(importlib.import_module(ERRORS_MODULE), name)
    raise AttributeError(f"module 'longform_eval' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
