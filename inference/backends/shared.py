"""One loaded model for every role and benchmark of an invocation whose specs are the same."""

from __future__ import annotations

from ..config import ModelSpec
from . import create_backend


class SharedBackends:
    """One loaded model serves both roles (and every benchmark) when the specs are the same."""

    def __init__(self):
        self.loaded: dict[str, KeepOpen] = {}

    def get(self, spec: ModelSpec) -> KeepOpen:
        key = spec.model_dump_json()
        if key not in self.loaded:
            self.loaded[key] = KeepOpen(create_backend(spec))
        return self.loaded[key]

    def close(self) -> None:
        for backend in self.loaded.values():
            backend.inner.close()


class KeepOpen:
    """Lets the runner call close() after each stage while the model stays loaded for the next one."""

    def __init__(self, inner):
        self.inner = inner
        self.name = inner.name

    def generate(self, requests, config, on_result=None):
        return self.inner.generate(requests, config, on_result=on_result)

    def close(self) -> None:
        pass
