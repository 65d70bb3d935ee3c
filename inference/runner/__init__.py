"""The resumable generate -> judge -> score -> report runner."""

from .run import Run, RunConfig, RunConfigMismatch

__all__ = ["Run", "RunConfig", "RunConfigMismatch"]
