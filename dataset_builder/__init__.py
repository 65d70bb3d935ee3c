"""Builders: benchmark source files -> Hub-ready dataset folders (parquet + README card)."""

from .errors import SourceError, SourceUnavailableError
from .registry import BUILDERS, build

__all__ = ["BUILDERS", "SourceError", "SourceUnavailableError", "build"]
