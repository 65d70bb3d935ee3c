"""longform-eval: long-form generation benchmarks, their scorers and a runner, on the Hugging Face stack.

The Python API (docs/python-api.md) is imported on first use, so that `import longform_eval.metric` stays light:

    import longform_eval as le
    result = le.run(benchmark="hellobench:chat", model="replay:a.jsonl", judge="replay:v.jsonl", out="runs/x")
"""

from __future__ import annotations

import importlib
from typing import Any

API_MODULE = "longform_eval.inference.api"
API = (
    "run",
    "generate",
    "judge",
    "score",
    "import_generations",
    "open_run",
    "runs",
    "samples",
    "compare",
    "leaderboard",
    "RunResult",
    "Comparisons",
    "Leaderboard",
)
# Every error of a run is a LongformEvalError; these are the ones worth catching apart.
ERROR_MODULES = {
    "LongformEvalError": "longform_eval.common.errors",
    "ConfigError": "longform_eval.common.errors",
    "SourceError": "longform_eval.common.errors",
    "RunConfigMismatch": "longform_eval.inference.runner.config",
    "RunFolderError": "longform_eval.inference.runner.folder",
    "RunFolderLocked": "longform_eval.inference.runner.lock",
    "RecordError": "longform_eval.inference.runner.records",
    "DamagedFile": "longform_eval.inference.report.json_file",
}
ERRORS = tuple(ERROR_MODULES)

__all__ = [*API, *ERRORS]


def __getattr__(name: str) -> Any:
    if name in API:
        return getattr(importlib.import_module(API_MODULE), name)
    if name in ERROR_MODULES:
        return getattr(importlib.import_module(ERROR_MODULES[name]), name)
    raise AttributeError(f"module 'longform_eval' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
