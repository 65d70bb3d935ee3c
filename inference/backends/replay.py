"""`replay:PATH`: answers from recorded completions (JSON Lines of `{"key": ..., "text": ...}`).

Use it to re-judge or re-score with completions recorded elsewhere (for example released judge verdicts),
with the runner's whole pipeline and no model.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path

from ..config import GenerationConfig
from .base import OnResult, Request, Result
from .options import Delay


class ReplayBackend:
    OUTPUT_NEUTRAL_OPTIONS = frozenset({"delay"})  # changing it on a run folder is not a new configuration

    @staticmethod
    def model_problem(model: str) -> str | None:
        return None if Path(model).is_file() else "no such file of recorded completions"

    def __init__(self, model: str, delay: Delay = 0.0):
        if self.model_problem(model):
            raise FileNotFoundError(f"replay:{model}: {self.model_problem(model)}")
        path = Path(model)
        self.name = f"replay:{model}"
        self.completions = {}
        with path.open(encoding="utf-8") as handle:
            for line in handle:
                if line.strip():
                    record = json.loads(line)
                    self.completions[str(record["key"])] = record["text"]
        self.calls = 0
        self.delay = float(delay)

    def generate(self, requests: Sequence[Request], config: GenerationConfig, on_result: OnResult | None = None):
        results = []
        for request in requests:
            self.calls += 1
            began = time.perf_counter()
            if self.delay:
                time.sleep(self.delay)
            text = self.completions.get(request.key)
            result = Result(
                key=request.key,
                text=text or "",
                finish_reason="stop" if text is not None else None,
                prompt_tokens=None,
                completion_tokens=None,
                seconds=time.perf_counter() - began,
                error=None if text is not None else f"no recorded completion for {request.key!r}",
            )
            results.append(result)
            if on_result is not None:
                on_result(result)
        return results

    def close(self) -> None:
        pass
