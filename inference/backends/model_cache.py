"""The folder that keeps the embedded model, its ONNX exports and compiled grammars (`LONGFORM_EVAL_MODELS`)."""

from __future__ import annotations

import os
from pathlib import Path


def cache_root() -> Path:
    return Path(os.environ.get("LONGFORM_EVAL_MODELS", Path.home() / ".cache" / "longform_eval" / "models"))
