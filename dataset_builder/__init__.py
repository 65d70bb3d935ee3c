"""Builders: benchmark source files -> Hub-ready dataset folders (parquet + README card)."""

from longform_eval.common.errors import OutputFolderError, SourceError, SourceUnavailableError

from .registry import BUILDERS, build

__all__ = ["BUILDERS", "OutputFolderError", "SourceError", "SourceUnavailableError", "build"]
