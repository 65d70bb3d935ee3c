"""GGUF -> ONNX Runtime GenAI model folder, once, cached beside the GGUF.

transformers dequantizes the GGUF into a Hugging Face folder (a temporary one, removed afterwards); the
onnxruntime-genai model builder turns that into an ONNX model: `int8-dynamic` (the default) builds it in fp32 and
onnxruntime's dynamic quantization gives every MatMul int8 weights and int8 activations quantized at run time
(MatMulInteger: MLAS's int8 GEMM, 2.1x the prompt speed of the int4 build on 2 cores, bench/RESULTS.md); `int4` and
`int8` are the builder's weight-only MatMulNBits (int8 activations on CPU). Every step writes into a temporary
folder that is renamed into place only when it is complete, so an interrupted export leaves nothing that looks
finished.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from longform_eval.common.errors import LongformEvalError

PRECISIONS = ("int8-dynamic", "int4", "int8")
DYNAMIC = "int8-dynamic"
COMPLETE_MARK = "genai_config.json"
# The prompt's logits are computed for its last token only (prefill is compute-bound on a CPU, and the LM head is a
# quarter of a 0.5B model's work); part of the folder name, so that a changed recipe makes a new folder.
BUILDER_OPTIONS = ("prune_lm_head=true",)
RECIPE = "last-logits"


class ExportError(LongformEvalError, RuntimeError):
    pass


def exported_folder(gguf: Path, precision: str) -> Path:
    return gguf.with_name(f"{gguf.stem}-onnx-{precision}-{RECIPE}")


def export_gguf_to_onnx(gguf: Path, precision: str = DYNAMIC) -> Path:
    """The cached ONNX folder of `gguf` (made on first use: about a minute for the 0.5B model on 2 cores)."""
    if precision not in PRECISIONS:
        raise ValueError(f"precision={precision!r}: choose one of {', '.join(PRECISIONS)}")
    target = exported_folder(gguf, precision)
    if (target / COMPLETE_MARK).is_file():
        return target
    with open(target.with_name(f".{target.name}.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # a second process waits for the first export instead of repeating it
        if not (target / COMPLETE_MARK).is_file():
            export_into(gguf, target, precision)
    return target


def export_into(gguf: Path, target: Path, precision: str) -> None:
    from ..progress import console

    if target.exists():
        raise ExportError(f"{target} exists without {COMPLETE_MARK}: not ours to replace; move it away")
    console.print(f"local: exporting {gguf.name} to ONNX ({precision}) once, into {target}", style="cyan", markup=False)
    with tempfile.TemporaryDirectory(prefix=f".{target.name}-", dir=target.parent) as scratch:
        scratch = Path(scratch)
        export_hf_folder(gguf, scratch / "hf")
        if precision == DYNAMIC:
            build_onnx(scratch / "hf", scratch / "fp32", scratch / "cache", "fp32")
            shutil.rmtree(scratch / "hf")  # 2 GB the quantization does not need
            quantize_in_child_process(scratch / "fp32", scratch / "onnx")
        else:
            build_onnx(scratch / "hf", scratch / "onnx", scratch / "cache", precision)
        os.replace(scratch / "onnx", target)


def export_hf_folder(gguf: Path, out: Path) -> None:
    """A plain (dequantized, fp32) Hugging Face folder: config, weights, tokenizer and chat template."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    with gguf_parsed_once():
        model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name, dtype="float32")
        tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    model.hf_quantizer = None  # the weights are plain tensors now; transformers refuses to save "GGUF-quantized"
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)


@contextlib.contextmanager
def gguf_parsed_once() -> Iterator[None]:
    """transformers opens the GGUF anew for the config, the weights and the tokenizer, each time parsing its
    151,936-token vocabulary (13 s of the export's 64 s on 2 cores): while this block runs, they share one reader."""
    import gguf

    opened = gguf.GGUFReader
    gguf.GGUFReader = functools.lru_cache(maxsize=1)(opened)
    try:
        yield
    finally:
        gguf.GGUFReader = opened


def quantize_in_child_process(fp32: Path, out: Path) -> None:
    """`quantize_int8_dynamic` in a fresh interpreter: its memory (the fp32 model, 2.5 GB) is not added to what this
    process still holds from the dequantization. A plain child, not multiprocessing's: a spawned one would import the
    caller's unguarded script again, and wait on this export's lock."""
    code = "import sys, pathlib; from {0} import quantize_int8_dynamic as q; q(*map(pathlib.Path, sys.argv[1:]))"
    command = [sys.executable, "-c", code.format(__name__), str(fp32), str(out)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise ExportError(f"int8 quantization failed (exit {done.returncode}):\n{(done.stdout + done.stderr)[-2000:]}")


def quantize_int8_dynamic(fp32: Path, out: Path) -> None:
    """`fp32`'s every MatMul with a constant weight given int8 weights (per tensor, symmetric) and activations
    quantized at run time; the other files (genai_config.json last, the folder's completion mark) copied beside."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    out.mkdir()
    options = {"MatMulConstBOnly": True}  # attention's activation x activation products stay in float
    quantize_dynamic(
        fp32 / "model.onnx",
        out / "model.onnx",
        op_types_to_quantize=["MatMul"],
        weight_type=QuantType.QInt8,
        extra_options=options,
        use_external_data_format=True,  # weights beside the graph: a load takes 1.3 s, not 4.0
    )
    files = sorted(f for f in fp32.iterdir() if f.is_file() and not f.name.startswith("model.onnx"))
    for file in sorted(files, key=lambda f: f.name == COMPLETE_MARK):
        shutil.copyfile(file, out / file.name)


def build_onnx(hf_folder: Path, out: Path, cache: Path, precision: str) -> None:
    """Run the onnxruntime-genai model builder in a child process; its log is kept only if it fails."""
    command = [sys.executable, "-m", "onnxruntime_genai.models.builder"]
    command += ["-m", str(hf_folder), "-i", str(hf_folder), "-o", str(out), "-c", str(cache)]
    command += ["-p", precision, "-e", "cpu", "--extra_options", *BUILDER_OPTIONS]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0 or not (out / COMPLETE_MARK).is_file():
        tail = (done.stdout + done.stderr)[-2000:]
        raise ExportError(f"onnxruntime-genai model builder failed (exit {done.returncode}):\n{tail}")
