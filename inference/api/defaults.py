"""The defaults of the API that the command line's help also shows: kept here, apart from the code that uses them,
so that building the parser imports nothing of the runner."""

from __future__ import annotations

from pathlib import Path

DEFAULT_OUT = Path("runs/default")
DEFAULT_MODEL = "local:default"
# The embedded demo must finish within 15 minutes on 2 CPU cores: short generations, one judge attempt.
DEFAULT_LIMITS = {"max_new_tokens": 160, "judge_max_new_tokens": 640, "per_group": 1}

__all__ = ["DEFAULT_LIMITS", "DEFAULT_MODEL", "DEFAULT_OUT"]
