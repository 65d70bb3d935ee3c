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
    plugin=f"{BENCHMARKS}.hellobench_pairwise:HelloBenchPairwise",
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
    plugin=f"{BENCHMARKS}.tencentllmeval:TencentLLMEval",
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
TRANSFORMERS = (("transformers", "4.45"), ("accelerate", "0.34"))

HF = BackendDeclaration(name="hf", backend=f"{BACKENDS}.hf_backend:HFBackend", requires=TRANSFORMERS, extra="hf")
LOCAL = BackendDeclaration(name="local", backend=f"{BACKENDS}.local:LocalBackend", requires=TRANSFORMERS, extra="local")
ORT = BackendDeclaration(
    name="ort",
    backend=f"{BACKENDS}.ort_backend:OrtGenAIBackend",
    requires=(("onnxruntime-genai", "0.9"),),
    extra="local",
)
OPENAI = BackendDeclaration(
    name="openai", backend=f"{BACKENDS}.openai_backend:OpenAIBackend", requires=(("openai", "1.40"),), extra="openai"
)
VLLM = BackendDeclaration(
    name="vllm", backend=f"{BACKENDS}.vllm_backend:VLLMBackend", requires=(("vllm", "0.6"),), extra="vllm"
)
REPLAY = BackendDeclaration(name="replay", backend=f"{BACKENDS}.replay:ReplayBackend")
