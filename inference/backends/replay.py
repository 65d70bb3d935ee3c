"""`replay:PATH`: answers from recorded completions (JSON Lines of `{"key": ..., "text": ...}`).

Use it to re-judge or re-score with completions recorded elsewhere (for example released judge verdicts),
with the runner's whole pipeline and no model.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

from longform_eval.common.bounded_json import loads_json
from longform_eval.common.errors import SourceError
from longform_eval.common.guarded import LOG, UnreadableFile, iter_lines, read_head

from ..config import GenerationConfig
from .base import OnResult, Request, Result
from .options import Delay


class ReplayBackend:
    OUTPUT_NEUTRAL_OPTIONS = frozenset({"delay"})  # changing it on a run folder is not a new configuration
    REPLAYS_RECORDED = True  # its answers are recorded: no sampling setting changes them

    @staticmethod
    def model_problem(model: str) -> str | None:
        """Why `model` is no file of recorded completions (checked before a run folder is made), or None."""
        if not Path(model).exists():
            return "no such file of recorded completions"
        try:
            read_head(Path(model), LOG, 0)  # a regular file within LOG's ceiling (a FIFO, /dev/zero: refused)
        except (OSError, UnreadableFile) as error:
            return getattr(error, "problem", None) or str(error)
        return None

    def __init__(self, model: str, delay: Delay = 0.0):
        if self.model_problem(model):
            raise FileNotFoundError(f"replay:{model}: {self.model_problem(model)}")
        path = Path(model)
        self.name = f"replay:{model}"
        self.completions = {}
        for number, line in iter_lines(path, LOG):  # streamed: a FIFO, a device or a file too large is refused
            if line.strip():
                try:
                    record = loads_json(line)
                    self.completions[str(record["key"])] = record["text"]
                except (ValueError, KeyError, TypeError) as error:
                    raise SourceError(path, number, None, f"not a recorded completion ({error})") from None
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
