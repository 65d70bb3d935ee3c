"""The Python API (docs/python-api.md): `run`, the stages `generate`, `judge` and `score`, `import_generations`,
`open_run`, `runs`, `samples`, `compare` and `leaderboard`.

Every setting is checked before any folder is touched; a refused one is a `ConfigError` whose `field` names it.

Each name is imported from its module on first use (PEP 562), so that importing one light module of the package
(`api.settings` for the command line's flags) does not import the runner, the report and the Hub client. No module
of the package is named as one of these names: importing it would set the package's attribute to the module."""

from __future__ import annotations

import importlib
from typing import Any

from longform_eval.common.errors import ConfigError

MODULES = {
    "Comparison": "read_back",
    "Comparisons": "read_back",
    "Leaderboard": "ranking",
    "RunResult": "result",
    "RunSettings": "settings",
    "build_config": "config_build",
    "compare": "read_back",
    "generate": "stages",
    "import_generations": "imports",
    "judge": "stages",
    "leaderboard": "ranking",
    "open_run": "read_back",
    "run": "stages",
    "runs": "many",
    "samples": "many",
    "score": "stages",
}

__all__ = ["ConfigError", *MODULES]


def __getattr__(name: str) -> Any:
    if name not in MODULES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{MODULES[name]}"), name)
    globals()[name] = value  # the next lookup does not come here
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
