"""How `vllm.LLM` is built: compact JSON for constrained judging, whatever the vLLM version, and CPU memory.

A constrained judge needs JSON without free whitespace: a JSON grammar that allows it lets a small model fill its
whole token budget with spaces after `[{`. Where vLLM reads that switch changed across versions, so it is found by
what the installed engine takes, not by its version number:

- `structured_outputs_config` (vLLM >= 0.10.2): engine-wide. The per-request
  `StructuredOutputsParams.disable_any_whitespace` still exists there but is never read (0.32).
- `guided_decoding_disable_any_whitespace` (about 0.8.5 to 0.10.1): engine-wide, beside `guided_decoding_backend`.
- older: `GuidedDecodingParams.disable_any_whitespace` per request where that field exists, else not at all.

The per-request flag is set wherever the field exists (harmless where it is not read).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

# The grammar engines that can write JSON without free whitespace (vLLM refuses the switch with the others).
# guidance (llguidance) takes every judge schema of this package's benchmarks; vLLM 0.32 refuses HelloEval's for
# xgrammar (a string with both a pattern and a maximum length).
StructuredOutputsBackend = Literal["guidance", "xgrammar"]
ENGINE_WIDE = "engine-wide"
PER_REQUEST = "per request"
UNCONTROLLED = "not controlled"


@dataclass(frozen=True)
class CompactJson:
    engine_args: dict[str, Any]  # what `vllm.LLM` is given
    where: str  # ENGINE_WIDE, PER_REQUEST or UNCONTROLLED
    request_flag: bool  # set `disable_any_whitespace` on each request's structured-output parameters


def field_names(cls: Any) -> set[str]:
    return {f.name for f in dataclasses.fields(cls)} if dataclasses.is_dataclass(cls) else set()


def request_params_class(vllm: Any) -> Any:
    sampling = getattr(vllm, "sampling_params", None)
    return getattr(sampling, "StructuredOutputsParams", None) or getattr(sampling, "GuidedDecodingParams", None)


def compact_json(vllm: Any, backend: StructuredOutputsBackend) -> CompactJson:
    """The engine arguments that make constrained replies compact JSON with `backend`, and where that is set."""
    engine = field_names(getattr(vllm, "EngineArgs", None))
    request_flag = "disable_any_whitespace" in field_names(request_params_class(vllm))
    if "structured_outputs_config" in engine:
        config = {"backend": backend, "disable_any_whitespace": True}
        return CompactJson({"structured_outputs_config": config}, ENGINE_WIDE, request_flag)
    if "guided_decoding_disable_any_whitespace" in engine:
        args = {"guided_decoding_backend": backend, "guided_decoding_disable_any_whitespace": True}
        return CompactJson(args, ENGINE_WIDE, request_flag)
    args = {"guided_decoding_backend": backend} if "guided_decoding_backend" in engine else {}
    return CompactJson(args, PER_REQUEST if request_flag else UNCONTROLLED, request_flag)


def engine_description(vllm: Any, backend: str, compact: CompactJson) -> str:
    """What config.yaml records as the engine: vLLM's version and how compact JSON was asked for."""
    return f"vllm {getattr(vllm, '__version__', '?')}, structured outputs {backend}, compact JSON {compact.where}"


@contextlib.contextmanager
def cpu_kv_cache_space(gib: int | None) -> Iterator[None]:
    """vLLM's CPU build sizes its KV cache from `VLLM_CPU_KVCACHE_SPACE` (GiB) while the engine starts (its engine
    process inherits it); set only for that start, and only when given. GPU builds ignore it."""
    if gib is None:
        yield
        return
    before = os.environ.get("VLLM_CPU_KVCACHE_SPACE")
    os.environ["VLLM_CPU_KVCACHE_SPACE"] = str(gib)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("VLLM_CPU_KVCACHE_SPACE", None)
        else:
            os.environ["VLLM_CPU_KVCACHE_SPACE"] = before
