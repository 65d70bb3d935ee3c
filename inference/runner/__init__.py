"""The resumable generate -> judge -> score -> report runner."""

from .config import RunConfig, RunConfigMismatch
from .run import Run
from .schema import SchemaMismatch

__all__ = ["Run", "RunConfig", "RunConfigMismatch", "SchemaMismatch"]
