"""Data parallelism under `accelerate launch`: each process generates its share; rank 0 merges.

Without accelerate (or with one process) everything runs in this process. The shards are separate record
logs (`generations.rank<N>.jsonl`), so a killed multi-process run resumes like a single one.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import TypeVar

from .records import RecordLog

T = TypeVar("T")


def process_state():
    """accelerate's state under a multi-process launch; None otherwise (without importing torch: a finished run's
    rerun stays fast)."""
    if int(os.environ.get("WORLD_SIZE", "1")) <= 1:  # set by `accelerate launch` / torchrun for every process
        return None
    try:
        from accelerate import PartialState
    except ImportError:
        return None
    state = PartialState()
    return state if state.num_processes > 1 else None


def shard_for_this_process(
    items: Sequence[T], log: RecordLog, record_key: Callable[[T], tuple]
) -> tuple[list[T], RecordLog, Callable[[], None]]:
    """(this process's items, the log to write them to, a function that merges the shards on rank 0).

    `record_key(item)` is the key its record will have, so that a resumed shard skips what it already wrote.
    """
    state = process_state()
    if state is None:
        return list(items), log, lambda: None
    shard_log = RecordLog(log.path.with_name(f"{log.path.stem}.rank{state.process_index}.jsonl"), log.key_fields)
    done = shard_log.done_keys()
    mine = [item for index, item in enumerate(items) if index % state.num_processes == state.process_index]
    mine = [item for item in mine if record_key(item) not in done]

    def merge() -> None:
        state.wait_for_everyone()
        if state.is_main_process:
            merge_shards(log, state.num_processes)
        state.wait_for_everyone()

    return mine, shard_log, merge


def merge_shards(log: RecordLog, processes: int) -> None:
    present = log.done_keys()
    for rank in range(processes):
        shard = RecordLog(log.path.with_name(f"{log.path.stem}.rank{rank}.jsonl"), log.key_fields)
        for record in shard.records():
            key = log.key_of(record)
            if key not in present:
                log.append(record)
                present.add(key)
        shard.path.unlink(missing_ok=True)
    log.close()


def is_main_process() -> bool:
    state = process_state()
    return state is None or state.is_main_process


def process_rank() -> int:
    state = process_state()
    return 0 if state is None else state.process_index
