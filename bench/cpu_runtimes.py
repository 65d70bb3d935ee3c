"""CPU runtimes for the embedded model (Qwen2.5-Coder-0.5B-Instruct Q4_K_M GGUF), side by side in one run.

    python bench/cpu_runtimes.py                      # every candidate, each in its own process
    python bench/cpu_runtimes.py --only onnx-int4     # one
    python bench/cpu_runtimes.py --only onnx-int4 --gguf qwen2.5-coder-1.5b-instruct.gguf   # another GGUF

Each candidate runs in a fresh child process (load time and peak RSS are its own) and reports: load seconds
(the one-time conversions are done before and timed apart), prefill tokens/s (time to the first new token on a
real HelloEval judge prompt of about 1,500 tokens), decode tokens/s (128 new tokens, greedy, after a short
prompt), peak RSS, and whether it can constrain output to a JSON schema. Needs `pip install -e '.[local]'`
plus `ctranslate2` for that candidate; a candidate that cannot be installed or loaded prints why.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DECODE_TOKENS = 128
GGUF_ENV = "LONGFORM_EVAL_BENCH_GGUF"
CANDIDATES = (
    "transformers-fp32",
    "transformers-bf16",
    "torch-int8-dynamic",
    "ctranslate2-int8",
    "onnx-int4",
    "onnx-int8",
    "openvino-genai",
)
GRAMMAR = {
    "transformers-fp32": "yes (xgrammar logits processor)",
    "transformers-bf16": "yes (xgrammar logits processor)",
    "torch-int8-dynamic": "yes (xgrammar logits processor)",
    "ctranslate2-int8": "no (no logits-processor hook in generate_tokens)",
    "onnx-int4": "yes (built-in llguidance)",
    "onnx-int8": "yes (built-in llguidance)",
    "openvino-genai": "yes (built-in xgrammar)",
}


def judge_prompt_messages() -> list[dict[str, str]]:
    """A real HelloEval judge prompt: the first chat row judged on GPT-4o's released response."""
    from longform_eval.dataset_builder.released import released_responses
    from longform_eval.inference.benchmarks import create_benchmark
    from longform_eval.inference.benchmarks.rows import benchmark_rows

    benchmark = create_benchmark("hellobench", "chat", {})
    rows = benchmark_rows(benchmark, None)
    responses = dict(released_responses(hellobench_source() / "generations/main_exp/gpt4o_0806"))
    row = next(r for r in rows if r["id"] in responses and 4000 < len(responses[r["id"]]) < 6000)
    return list(benchmark.judge_calls(row, responses[row["id"]])[0].request.messages)


def hellobench_source() -> Path:
    """$LONGFORM_EVAL_SOURCE/hellobench, else this workspace's copy beside the checkout (bench only)."""
    from longform_eval.dataset_builder.sources import local_candidates

    beside = Path(__file__).resolve().parents[2] / "shared" / "data" / "hellobench"
    return next(p for p in [*local_candidates("hellobench"), beside] if p.is_dir())


DECODE_MESSAGES = [{"role": "user", "content": "Write a long story about a lighthouse keeper, at least 600 words."}]


# ----- one candidate (child process) ---------------------------------------------------------------------
class Timed:
    def __init__(self, load, prefill, decode):
        self.load, self.prefill, self.decode = load, prefill, decode


def model_gguf() -> Path:
    """The GGUF measured: `--gguf` (passed to the children in LONGFORM_EVAL_BENCH_GGUF), else the embedded one."""
    from longform_eval.inference.backends.local import assemble_gguf

    return Path(os.environ[GGUF_ENV]) if os.environ.get(GGUF_ENV) else assemble_gguf()


def hf_candidate(kind: str) -> Timed:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    gguf = model_gguf()
    began = time.perf_counter()
    dtype = torch.bfloat16 if kind == "transformers-bf16" else torch.float32
    model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name, dtype=dtype).eval()
    tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    if kind == "torch-int8-dynamic":
        model = torch.ao.quantization.quantize_dynamic(model, {torch.nn.Linear}, dtype=torch.qint8)
    load = time.perf_counter() - began

    def run(messages, new_tokens):
        text = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        ids = tokenizer(text, return_tensors="pt", add_special_tokens=False)
        with torch.inference_mode():
            start = time.perf_counter()
            out = model.generate(**ids, max_new_tokens=new_tokens, min_new_tokens=new_tokens, do_sample=False)
            return ids["input_ids"].shape[1], out.shape[1] - ids["input_ids"].shape[1], time.perf_counter() - start

    return Timed(load, *measure(run))


def ct2_candidate() -> Timed:
    import ctranslate2
    from transformers import AutoTokenizer

    folder = converted_ct2()
    began = time.perf_counter()
    generator = ctranslate2.Generator(str(folder), device="cpu", compute_type="int8", intra_threads=2)
    tokenizer = AutoTokenizer.from_pretrained(folder)
    load = time.perf_counter() - began

    def run(messages, new_tokens):
        text = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        tokens = tokenizer.convert_ids_to_tokens(tokenizer(text, add_special_tokens=False)["input_ids"])
        start = time.perf_counter()
        result = generator.generate_batch(
            [tokens], max_length=new_tokens, min_length=new_tokens, sampling_topk=1, include_prompt_in_result=False
        )
        return len(tokens), len(result[0].sequences_ids[0]), time.perf_counter() - start

    return Timed(load, *measure(run))


def onnx_candidate(precision: str) -> Timed:
    import onnxruntime_genai as og
    from transformers import AutoTokenizer

    from longform_eval.inference.backends.onnx_export import export_gguf_to_onnx
    from longform_eval.inference.backends.ort_backend import OrtGenAIBackend

    folder = export_gguf_to_onnx(model_gguf(), precision)
    began = time.perf_counter()
    model = OrtGenAIBackend(str(folder)).model  # the backend's own session settings (threads)
    tokenizer = AutoTokenizer.from_pretrained(folder)
    load = time.perf_counter() - began

    def run(messages, new_tokens):
        text = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        ids = tokenizer(text, add_special_tokens=False)["input_ids"]
        params = og.GeneratorParams(model)
        params.set_search_options(max_length=len(ids) + new_tokens, min_length=len(ids) + new_tokens, do_sample=False)
        generator = og.Generator(model, params)
        start = time.perf_counter()
        generator.append_tokens(ids)
        made = 0
        while not generator.is_done():
            generator.generate_next_token()
            made += 1
        return len(ids), made, time.perf_counter() - start

    return Timed(load, *measure(run))


def openvino_candidate() -> Timed:
    import openvino_genai

    began = time.perf_counter()
    openvino_genai.LLMPipeline(str(model_gguf()), "CPU")  # its GGUF reader; an IR export needs optimum-intel
    raise RuntimeError(f"loaded in {time.perf_counter() - began:.1f} s but not measured")


def measure(run) -> tuple[float, float]:
    """(prefill tokens/s, decode tokens/s): first token on the long prompt; 128 tokens after a short one."""
    run(DECODE_MESSAGES, 2)  # warm-up
    prompt_tokens, _, seconds = run(judge_prompt_messages(), 1)
    short_tokens, made, total = run(DECODE_MESSAGES, DECODE_TOKENS)
    _, _, first = run(DECODE_MESSAGES, 1)
    return prompt_tokens / seconds, (made - 1) / max(total - first, 1e-9)


def converted_ct2() -> Path:
    from longform_eval.inference.backends.local import cache_root
    from longform_eval.inference.backends.onnx_export import export_hf_folder

    target = cache_root() / f"bench-ctranslate2-int8-{model_gguf().stem}"
    if not (target / "model.bin").is_file():
        import ctranslate2

        with tempfile.TemporaryDirectory(dir=cache_root()) as scratch:
            export_hf_folder(model_gguf(), Path(scratch) / "hf")
            ctranslate2.converters.TransformersConverter(str(Path(scratch) / "hf")).convert(
                str(target), quantization="int8", force=True
            )
            from transformers import AutoTokenizer

            AutoTokenizer.from_pretrained(Path(scratch) / "hf").save_pretrained(target)
    return target


def peak_rss_gb() -> float:
    """This process's own high-water mark (VmHWM; ru_maxrss would carry the parent's over exec)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1e6
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6


def child(kind: str) -> None:
    if kind.startswith("onnx-"):
        timed = onnx_candidate(kind.removeprefix("onnx-"))
    elif kind == "ctranslate2-int8":
        timed = ct2_candidate()
    elif kind == "openvino-genai":
        timed = openvino_candidate()
    else:
        timed = hf_candidate(kind)
    peak = peak_rss_gb()
    print(json.dumps({"load_s": timed.load, "prefill": timed.prefill, "decode": timed.decode, "rss_gb": peak}))


# ----- the table (parent) --------------------------------------------------------------------------------
def prepare(kinds: list[str]) -> None:
    """The one-time conversions, outside the timed children."""
    from longform_eval.inference.backends.onnx_export import export_gguf_to_onnx

    for kind in kinds:
        began = time.perf_counter()
        try:
            if kind.startswith("onnx-"):
                export_gguf_to_onnx(model_gguf(), kind.removeprefix("onnx-"))
            elif kind == "ctranslate2-int8":
                converted_ct2()
            else:
                continue
        except Exception as error:  # reported in its row
            print(f"{kind}: conversion failed: {error}", file=sys.stderr)
            continue
        print(f"{kind}: converted (or found cached) in {time.perf_counter() - began:.0f} s", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", action="append", choices=CANDIDATES)
    parser.add_argument("--gguf", type=Path, help="measure this GGUF instead of the embedded model")
    parser.add_argument("--child", choices=CANDIDATES, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.gguf:
        os.environ[GGUF_ENV] = str(args.gguf.resolve())
    if args.child:
        return child(args.child)
    kinds = args.only or list(CANDIDATES)
    prepare(kinds)
    print(f"model: {model_gguf().name}; {os.cpu_count()} cores; {sys.version.split()[0]}")
    print("| runtime | load s | prefill tok/s | decode tok/s | peak RSS GB | JSON-schema constraint |")
    print("|---|---|---|---|---|---|")
    for kind in kinds:
        done = subprocess.run([sys.executable, __file__, "--child", kind], capture_output=True, text=True)
        lines = [x for x in done.stdout.splitlines() if x.startswith("{")]
        if done.returncode or not lines:
            reason = (done.stderr.strip().splitlines() or ["no output"])[-1][:150]
            print(f"| {kind} | - | - | - | - | {GRAMMAR[kind]}; not measured: {reason} |")
            continue
        row = json.loads(lines[-1])
        print(
            f"| {kind} | {row['load_s']:.1f} | {row['prefill']:.0f} | {row['decode']:.1f} | {row['rss_gb']:.2f} "
            f"| {GRAMMAR[kind]} |"
        )


if __name__ == "__main__":
    main()
