"""GPU generation throughput: our `hf` backend vs raw transformers on the same rows, process to process, interleaved.

Each measurement runs in a fresh process (raw, ours, raw, ours, ...): it builds the model from a `config.json` with
random weights (any architecture; `--shape qwen2-7b` edits the config to a Qwen2-7B shape), tokenizes the rows
with the chat template, and times generation only (model build excluded). "raw" is transformers called directly
(`model.generate_batch` for continuous batching, or `model.generate` in fixed batches for static); "ours" is
`HFBackend.generate` with each row's record appended to a JSONL file as it arrives, as the runner does; its report
carries the memory plan of each continuous pass (`plans`, as config.yaml's `engine` records it) and the backend's
notes (`log`: the plan's one line, passes that failed, rows sent to static batching). A separate
process measures the device-to-device copy bandwidth, which gives the weight-bandwidth bound:
`rows in flight x bandwidth / weight bytes` tokens/s (rows in flight = min(rows, --bound-batch)).

Export rows here (needs the package and the benchmark data), then run on the GPU machine (torch + transformers):
    python bench/gpu_generate.py export --benchmark hellobench --limit 256 --out .gpu/rows.jsonl
    python bench/gpu_generate.py bench --config .gpu/q05 --rows .gpu/rows.jsonl --limit 64 --shape qwen2-7b
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHAPES = {
    "qwen2-7b": {
        "hidden_size": 3584,
        "intermediate_size": 18944,
        "num_hidden_layers": 28,
        "num_attention_heads": 28,
        "num_key_value_heads": 4,
        "vocab_size": 152064,
        "tie_word_embeddings": False,
    }
}


def export(args: argparse.Namespace) -> None:
    from longform_eval.inference.benchmarks import create_benchmark
    from longform_eval.inference.benchmarks.rows import benchmark_rows

    benchmark = create_benchmark(args.benchmark, args.config_name, {})
    rows = benchmark_rows(benchmark, None, None, None)[: args.limit]
    with open(args.out, "w", encoding="utf-8") as handle:
        for request in benchmark.generation_requests(rows):
            messages = list(request.messages) if request.messages else None
            handle.write(json.dumps({"key": request.key, "messages": messages, "prompt": request.prompt}) + "\n")
    print(f"{len(rows)} rows -> {args.out}")


def import_package() -> None:
    """Make `longform_eval.inference` importable from the checkout without installing it (GPU machine)."""
    try:
        import longform_eval.inference.backends.hf_backend  # noqa: F401

        return
    except ImportError:
        pass
    root = Path(tempfile.mkdtemp(prefix="longform-eval-path-"))
    (root / "longform_eval").mkdir()
    for name in ("inference", "dataset_builder", "metric"):
        (root / "longform_eval" / name).symlink_to(REPO / name)
    sys.path.insert(0, str(root))


def build_model(config_dir: str, shape: str | None, device: str):
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer

    config = AutoConfig.from_pretrained(config_dir)
    if shape:  # rebuilt, so that per-layer lists (layer_types) follow the new number of layers
        fields = {**config.to_dict(), **SHAPES[shape]}
        fields.pop("layer_types", None)
        config = type(config)(**fields)
    torch.manual_seed(0)
    with torch.device(device):
        model = AutoModelForCausalLM.from_config(config, dtype=torch.bfloat16)
    tokenizer = AutoTokenizer.from_pretrained(config_dir, padding_side="left")
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    return model.eval(), tokenizer


def read_rows(path: str, limit: int) -> list[dict]:
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle][:limit]


def child(args: argparse.Namespace) -> None:
    import torch
    import transformers

    model, tokenizer = build_model(args.config, args.shape, args.device)
    rows = read_rows(args.rows, args.limit)
    options = json.loads(args.options)
    synchronize(args.device)
    began = time.perf_counter()
    plans: list[str] = []
    if args.impl == "ours":
        tokens, failed, engine, by_engine, plans = run_ours(model, tokenizer, rows, args, options)
    else:
        tokens, failed, engine = run_raw(model, tokenizer, rows, args, options)
        by_engine = {engine: len(rows) - failed}
    synchronize(args.device)
    seconds = time.perf_counter() - began
    weights = sum(p.numel() * p.element_size() for p in model.parameters())
    report = {
        "impl": args.impl,
        "engine": engine,
        "rows": len(rows),
        "tokens": tokens,
        "failed": failed,
        "rows_by_engine": by_engine,
        "plans": plans,
        "seconds": round(seconds, 2),
        "tok_s": round(tokens / seconds, 1),
        "weight_bytes": weights,
        "peak_gib": round(torch.cuda.max_memory_allocated() / 2**30, 1) if args.device == "cuda" else None,
        "transformers": transformers.__version__,
        "torch": torch.__version__,
    }
    print("RESULT " + json.dumps(report), flush=True)


def synchronize(device: str) -> None:
    import torch

    if device == "cuda":
        torch.cuda.synchronize()


def run_ours(model, tokenizer, rows, args, options):
    import_package()
    from longform_eval.inference.backends.base import Request
    from longform_eval.inference.backends.hf_backend import HFBackend
    from longform_eval.inference.config import GenerationConfig

    backend = HFBackend.from_loaded(model, tokenizer, args.device, **options)
    requests = [
        Request(key=r["key"], messages=tuple(r["messages"]) if r["messages"] else None, prompt=r["prompt"])
        for r in rows
    ]
    config = GenerationConfig(max_new_tokens=args.max_new_tokens, temperature=0.0)
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl") as log:

        def save(result):
            log.write(json.dumps({"key": result.key, "text": result.text, "error": result.error}) + "\n")
            log.flush()

        results = backend.generate(requests, config, on_result=save)
    failed = sum(1 for r in results if r.error)
    by_engine = Counter(r.extra.get("engine", "?") for r in results if not r.error)
    tokens = sum(r.completion_tokens or 0 for r in results if not r.error)
    return tokens, failed, backend.engine, dict(by_engine), list(backend.plans)


def prompt_ids(tokenizer, row) -> list[int]:
    if row["messages"]:
        text = tokenizer.apply_chat_template(row["messages"], tokenize=False, add_generation_prompt=True)
        return tokenizer(text, add_special_tokens=False)["input_ids"]
    return tokenizer(row["prompt"])["input_ids"]


def run_raw(model, tokenizer, rows, args, options):
    import torch
    from transformers import GenerationConfig

    inputs = [prompt_ids(tokenizer, row) for row in rows]
    generation = GenerationConfig.from_dict(model.generation_config.to_dict())
    generation.update(do_sample=False, max_new_tokens=args.max_new_tokens, pad_token_id=tokenizer.pad_token_id)
    if options.get("engine") == "static":
        size = int(options.get("batch_size", 4))
        tokens = 0
        order = sorted(inputs, key=len)
        for start in range(0, len(order), size):
            batch = tokenizer.pad({"input_ids": order[start : start + size]}, return_tensors="pt").to(args.device)
            with torch.inference_mode():
                out = model.generate(**batch, generation_config=generation)
            new = out[:, batch["input_ids"].shape[1] :]
            tokens += int((new != tokenizer.pad_token_id).sum())
        return tokens, 0, "static"
    from transformers.generation.configuration_utils import ContinuousBatchingConfig

    cb = {"use_cuda_graph": options["cuda_graph"]} if options.get("cuda_graph") is not None else {}
    outputs = model.generate_batch(
        inputs, generation_config=generation, continuous_batching_config=ContinuousBatchingConfig(**cb)
    )
    good = [o for o in outputs.values() if o.error is None]
    return sum(len(o.generated_tokens) for o in good), len(inputs) - len(good), "continuous"


def bandwidth(_: argparse.Namespace) -> None:
    import torch

    source = torch.empty(1 << 30, dtype=torch.uint8, device="cuda")
    target = torch.empty_like(source)
    for _ in range(3):
        target.copy_(source)
    torch.cuda.synchronize()
    began, repeats = time.perf_counter(), 20
    for _ in range(repeats):
        target.copy_(source)
    torch.cuda.synchronize()
    rate = 2 * source.numel() * repeats / (time.perf_counter() - began)  # bytes read + written per second
    print("RESULT " + json.dumps({"bandwidth_tb_s": round(rate / 1e12, 2), "device": torch.cuda.get_device_name()}))


def spawn(*argv: str, timeout: float) -> dict:
    command = [sys.executable, str(Path(__file__).resolve()), *argv]
    env = {**os.environ, "COLUMNS": "1000", "PYTHONUNBUFFERED": "1"}  # the backend's notes on one line each
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired as expired:
        return {"error": f"no result within {timeout:.0f} s", "log": notes_of(expired.stderr)}
    lines = [x for x in done.stdout.splitlines() if x.startswith("RESULT ")]
    if done.returncode or not lines:
        tail = (done.stderr or done.stdout)[-1500:]
        return {"error": f"exit {done.returncode}: {tail}"}
    report = json.loads(lines[-1][len("RESULT ") :])
    notes = notes_of(done.stderr)
    return {**report, "log": notes} if notes else report


def notes_of(stderr: str | bytes | None) -> list[str]:
    """The backend's own notes (engine passes, failures), each cut at 400 characters."""
    text = stderr.decode(errors="replace") if isinstance(stderr, bytes) else stderr or ""
    return [x.strip()[:400] for x in text.splitlines() if x.startswith("hf:") or "failed" in x][:12]


def bench(args: argparse.Namespace) -> None:
    link = spawn("bandwidth", timeout=120) if args.device == "cuda" else {"device": args.device}
    print(json.dumps(link), flush=True)
    common = ["--config", args.config, "--rows", args.rows, "--limit", str(args.limit)]
    common += ["--max-new-tokens", str(args.max_new_tokens), "--shape", args.shape or "", "--device", args.device]
    order = [impl for _ in range(args.repeat) for impl in args.impls.split(";")]
    for impl in order:
        name, _, options = impl.partition(":")
        report = spawn("child", "--impl", name, "--options", options or "{}", *common, timeout=args.timeout)
        report["label"] = impl
        if "tok_s" in report and "bandwidth_tb_s" in link:
            in_flight = min(report["rows"], args.bound_batch)
            bound = in_flight * link["bandwidth_tb_s"] * 1e12 / report["weight_bytes"]
            report["bound_tok_s"] = round(bound)
            report["of_bound"] = round(report["tok_s"] / bound, 3)
        print(json.dumps(report), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("export")
    p.add_argument("--benchmark", default="hellobench")
    p.add_argument("--config-name", default=None)
    p.add_argument("--limit", type=int, default=256)
    p.add_argument("--out", required=True)
    sub.add_parser("bandwidth")
    for name in ("bench", "child"):
        p = sub.add_parser(name)
        p.add_argument("--config", required=True, help="a folder with config.json and the tokenizer")
        p.add_argument("--rows", required=True)
        p.add_argument("--limit", type=int, default=64)
        p.add_argument("--max-new-tokens", type=int, default=512)
        p.add_argument("--shape", default=None, choices=[None, "", *SHAPES])
        p.add_argument("--device", default="cuda", help="cpu: a check of the bench itself on a small config")
    bench_parser = sub.choices["bench"]
    bench_parser.add_argument("--impls", default="raw;ours", help='";"-separated, e.g. raw:{"cuda_graph":true};ours')
    bench_parser.add_argument("--repeat", type=int, default=2)
    bench_parser.add_argument("--bound-batch", type=int, default=64)
    bench_parser.add_argument("--timeout", type=float, default=540)
    child_parser = sub.choices["child"]
    child_parser.add_argument("--impl", choices=["raw", "ours"], required=True)
    child_parser.add_argument("--options", default="{}")
    args = parser.parse_args()
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    {"export": export, "bandwidth": bandwidth, "bench": bench, "child": child}[args.command](args)


if __name__ == "__main__":
    main()
