"""The embedded model's exports compared on this machine's cores: why `int8-dynamic` is the default.

1. One MatMul of the model's shapes (hidden 896, MLP 4,864) at 1 token (a decode step) and 1,024 tokens (a prompt
   chunk): fp32, int8 weights with run-time int8 activations (onnxruntime's dynamic quantization: MatMulInteger),
   and int4 weights (MatMulNBits, accuracy level 4: int8 compute), each in its own session on every core.
2. The whole model, each export in the cache (`local:default` with `precision=`, exported on first use): a prompt
   of about 2,000 tokens (time to its first new token), then 128 greedy tokens for 1 row and for 5 rows together,
   on the batched engine.

    python bench/ort_precisions.py [--precision int8-dynamic int4]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import numpy as np

SHAPES = ((896, 4864), (4864, 896), (896, 896))
README = Path(__file__).resolve().parents[1] / "README.md"


def matmul_model(k: int, n: int, path: Path) -> None:
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    weight = numpy_helper.from_array((np.random.default_rng(0).standard_normal((k, n)) * 0.02).astype(np.float32), "W")
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["X", "W"], ["Y"])],
        "matmul",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, ["M", k])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, ["M", n])],
        [weight],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 9
    onnx.save(model, path)


def quantized_models(folder: Path, k: int, n: int) -> dict[str, Path]:
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from onnxruntime.quantization.matmul_nbits_quantizer import DefaultWeightOnlyQuantConfig, MatMulNBitsQuantizer

    paths = {name: folder / f"{name}-{k}x{n}.onnx" for name in ("fp32", "int8-dynamic", "int4")}
    matmul_model(k, n, paths["fp32"])
    quantize_dynamic(paths["fp32"], paths["int8-dynamic"], weight_type=QuantType.QInt8)
    config = DefaultWeightOnlyQuantConfig(block_size=32, is_symmetric=True, accuracy_level=4)
    quantizer = MatMulNBitsQuantizer(onnx.load(paths["fp32"]), algo_config=config)
    quantizer.process()
    quantizer.model.save_model_to_file(str(paths["int4"]))
    return paths


def seconds_per_run(path: Path, m: int, k: int, repeats: int = 5) -> float:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = os.cpu_count() or 1
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    x = np.random.default_rng(1).standard_normal((m, k)).astype(np.float32)
    session.run(None, {"X": x})
    began = time.perf_counter()
    for _ in range(repeats):
        session.run(None, {"X": x})
    return (time.perf_counter() - began) / repeats


def gemm_table() -> None:
    print("| MatMul (K x N), tokens | fp32 | int8-dynamic | int4 (MatMulNBits) |\n|---|---|---|---|")
    with tempfile.TemporaryDirectory() as scratch:
        for k, n in SHAPES:
            paths = quantized_models(Path(scratch), k, n)
            for m in (1, 1024):
                cells = []
                for path in paths.values():
                    took = seconds_per_run(path, m, k)
                    cells.append(f"{took * 1e3:.2f} ms ({2 * m * k * n / took / 1e9:.0f} GFLOP/s)")
                print(f"| {k} x {n}, {m} | " + " | ".join(cells) + " |", flush=True)


def model_row(precision: str) -> str:
    from longform_eval.inference.backends.base import Request
    from longform_eval.inference.backends.local import LocalBackend
    from longform_eval.inference.config import GenerationConfig

    model = LocalBackend("default", precision=precision).inner
    prompt = Request("prompt", prompt="Summarize this:\n" + README.read_text()[:7000])
    tokens = len(model.prompt(prompt, GenerationConfig(max_new_tokens=1))[0])
    model.generate([Request("warm", prompt="Hello")], GenerationConfig(max_new_tokens=4))
    began = time.perf_counter()
    model.generate([prompt], GenerationConfig(max_new_tokens=1))
    cells = [f"{tokens / (time.perf_counter() - began):.0f} ({tokens} tokens)"]
    for rows in (1, 5):
        stories = [Request(f"r{i}", prompt=f"Write a long story about cat number {i}.") for i in range(rows)]
        began = time.perf_counter()
        found = model.generate(stories, GenerationConfig(max_new_tokens=128))
        cells.append(f"{sum(r.completion_tokens for r in found) / (time.perf_counter() - began):.1f}")
    return f"| {precision} | " + " | ".join(cells) + " |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--precision", nargs="+", default=["int8-dynamic", "int4"])
    args = parser.parse_args()
    print(f"{time.strftime('%Y-%m-%d %H:%M %Z')}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}")
    gemm_table()
    print("\n| export | prompt tokens/s | decode tokens/s, 1 row | decode tokens/s, 5 rows |\n|---|---|---|---|")
    for precision in args.precision:
        print(model_row(precision), flush=True)


if __name__ == "__main__":
    main()
