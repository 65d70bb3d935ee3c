"""The `ort` backend's batched engine: the rows of a call decode together, the prompt prefix they share computed once.

A row is admitted into a free slot of the cache: the prefix that every prompt of the call shares (a judge's
instructions) is computed once and copied into the slot, the rest of its prompt is computed alone in chunks of
PREFILL_CHUNK tokens (which bounds the attention's scratch memory), and its first token is chosen. Then the rows in
the slots decode one token each per step, together; a finished row is handed on at once and its slot goes to the
next waiting row. Up to `batch_size` rows share a step, fewer where their caches would pass KV_BUDGET_BYTES.
"""

from __future__ import annotations

import os
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..config import GenerationConfig
from .base import Request
from .ort_decoder import DecoderModel, SlotCache, end_token_ids
from .ort_sampling import Grammars, RowSampler, folder_search_defaults

PREFILL_CHUNK = 512  # tokens; its attention scratch is 14 heads x chunk x the cache's capacity floats
MIN_SHARED_PREFIX = 16  # tokens; a shorter common start is not worth a cache of its own
KV_BUDGET_BYTES = 2 << 30


@dataclass
class Row:
    """One request in the engine: its prompt, the tokens chosen so far, and why it ended."""

    request: Request
    ids: list[int]
    limit: int  # prompt and new tokens together, at most
    sampler: RowSampler
    began: float = field(default_factory=time.perf_counter)
    new: list[int] = field(default_factory=list)
    stopped: bool = False  # an end token, the end of its grammar or a stop string
    error: str | None = None

    @property
    def cached(self) -> int:
        """Tokens in the row's cache: the prompt and every chosen token but the last."""
        return len(self.ids) + len(self.new) - 1

    @property
    def done(self) -> bool:
        return self.stopped or self.error is not None or len(self.ids) + len(self.new) >= self.limit


Finish = Callable[[Row], None]
StopCheck = Callable[[Row], bool]


class BatchedEngine:
    def __init__(self, folder: Path, settings: dict[str, Any], threads: int, batch_size: int, tokenizer: Any):
        """`settings`: the folder's genai_config.json."""
        self.model = DecoderModel(folder, settings, threads)
        self.defaults = folder_search_defaults(settings)
        self.grammars = Grammars(tokenizer, self.model.vocab_size)
        self.batch_size = batch_size
        self.end_ids = end_token_ids(settings)

    def run(
        self,
        prompts: Sequence[tuple[Request, list[int], int]],
        config: GenerationConfig,
        stop_hit: StopCheck,
        finish: Finish,
    ) -> None:
        """Generates every (request, prompt ids, length limit); `finish(row)` as each row ends, failed or not."""
        waiting: deque[Row] = deque()
        for request, ids, limit in prompts:
            row = self.row(request, ids, limit, config)
            (finish if row.done else waiting.append)(row)
        if not waiting:
            return
        capacity = max(row.limit for row in waiting)
        cache = SlotCache(self.model.shape, self.slots(len(waiting), capacity), capacity)
        prefix = self.shared_prefix([row.ids for row in waiting])
        active: list[Row] = []
        while waiting or active:
            while waiting and len(active) < cache.slots:
                row = waiting.popleft()
                self.admit(row, cache, len(active), prefix, stop_hit)
                (finish if row.done else active.append)(row)
            if active:
                self.step(cache, active, stop_hit)
                for index in reversed([i for i, row in enumerate(active) if row.done]):
                    finish(self.release(cache, active, index))

    def row(self, request: Request, ids: list[int], limit: int, config: GenerationConfig) -> Row:
        try:
            matcher = None if request.json_schema is None else self.grammars.matcher(request.json_schema)
        except (RuntimeError, ValueError) as error:  # a schema xgrammar cannot compile fails its row alone
            return Row(request, ids, limit, RowSampler(config, self.defaults), error=f"xgrammar: {error}")
        return Row(request, ids, limit, RowSampler(config, self.defaults, matcher))

    def slots(self, rows: int, capacity: int) -> int:
        shape = self.model.shape
        per_row = 2 * shape.layers * shape.kv_heads * shape.head_size * capacity * np.dtype(shape.dtype).itemsize
        return max(1, min(self.batch_size, rows, KV_BUDGET_BYTES // per_row))

    def shared_prefix(self, prompts: list[list[int]]) -> tuple[SlotCache, int] | None:
        """The cache of the tokens that every prompt starts with (each keeps at least one of its own), if any."""
        if len(prompts) < 2:
            return None
        length = min(len(os.path.commonprefix(prompts)), min(map(len, prompts)) - 1)
        if length < MIN_SHARED_PREFIX:
            return None
        cache = SlotCache(self.model.shape, 1, length)
        try:
            self.prefill(cache, 0, prompts[0][:length], 0)
        except RuntimeError:
            return None  # each row then computes its whole prompt, and reports what fails
        return cache, length

    def prefill(self, cache: SlotCache, slot: int, ids: list[int], start: int) -> np.ndarray:
        """Computes `ids[start:]` into the slot (its first `start` positions already there); the last logits."""
        logits = None
        for begin in range(start, len(ids), PREFILL_CHUNK):
            chunk = np.array([ids[begin : begin + PREFILL_CHUNK]])
            logits = self.model.forward(cache, slice(slot, slot + 1), chunk, [begin])
        return logits[0]

    def admit(self, row: Row, cache: SlotCache, slot: int, prefix: tuple[SlotCache, int] | None, stop: StopCheck):
        row.began = time.perf_counter()
        start = 0
        if prefix is not None:
            cache.copy(prefix[0], 0, slot, prefix[1])
            start = prefix[1]
        try:
            self.choose(row, self.prefill(cache, slot, row.ids, start), stop)
        except (RuntimeError, ValueError) as error:
            row.error = f"onnxruntime: {error}"

    def step(self, cache: SlotCache, active: list[Row], stop: StopCheck) -> None:
        tokens = np.array([[row.new[-1]] for row in active])
        try:
            logits = self.model.forward(cache, slice(0, len(active)), tokens, [row.cached for row in active])
        except (RuntimeError, ValueError) as error:
            for row in active:
                row.error = f"onnxruntime: {error}"
            return
        for row, row_logits in zip(active, logits, strict=True):
            try:  # a row that cannot choose fails alone, as in `admit`
                self.choose(row, row_logits, stop)
            except (RuntimeError, ValueError) as error:
                row.error = f"onnxruntime: {error}"

    def choose(self, row: Row, logits: np.ndarray, stop: StopCheck) -> None:
        token = row.sampler.choose(logits)
        row.new.append(token)
        row.stopped = token in self.end_ids or row.sampler.ended() or stop(row)

    @staticmethod
    def release(cache: SlotCache, active: list[Row], index: int) -> Row:
        """Takes the row out of its slot; the last slot's row moves into it, so that the rows stay in slots 0..k-1."""
        row, last = active[index], len(active) - 1
        if index != last:
            cache.copy(None, last, index, active[last].cached)
            active[index] = active[last]
        active.pop()
        return row
