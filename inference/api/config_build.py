"""Settings -> the typed RunConfig: every setting checked here, before any folder is touched.

Each problem is a ConfigError naming the setting (`model_args`, `judge_samples`, ...); the CLI names the flag."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from ..backends import model_problem, option_problem
from ..benchmarks import Benchmark, benchmark_class, benchmark_names, create_benchmark
from ..config import GenerationConfig, ModelSpec
from ..runner import RunConfig
from ..runner.judge_samples import samples_problem
from .defaults import DEFAULT_LIMITS, DEFAULT_MODEL
from .settings import RunSettings, refused


def backend_spec(name: str, options: dict[str, Any], role: str = "model") -> ModelSpec:
    """`BACKEND:MODEL` with its options (setting `<role>_args`), each checked: name, type, range, no secret."""
    try:
        ModelSpec.parse(name)
    except ValueError as error:
        raise refused(role, str(error)) from None
    try:
        spec = ModelSpec.parse(name, options)
    except ValueError as error:
        raise refused(f"{role}_args", str(error)) from None
    try:
        problem = option_problem(spec)
    except ValueError as error:  # an unknown backend
        raise refused(role, str(error)) from None
    if problem is not None:
        raise refused(f"{role}_args", problem[1], problem[0])
    return spec


def check_model_found(spec: ModelSpec | None, role: str = "model") -> None:
    """The model a backend would load is there (a replay file, ...): checked last, after every other setting."""
    missing = model_problem(spec) if spec is not None else None
    if missing is not None:
        raise refused(role, missing, spec.name)


def checked_parser(benchmark: Benchmark, name: str | None) -> str:
    parser = name or benchmark.paper_settings().parser
    if parser not in benchmark.parsers:
        raise refused("parser", f"{benchmark.name} has {', '.join(benchmark.parsers)}", repr(parser))
    return parser


def constrained_judge(setting: bool | None, judge: ModelSpec | None) -> bool:
    """On by default for the embedded judge, which cannot follow the paper's free-text format reliably."""
    if setting is not None:
        return setting
    return judge is not None and judge.backend == "local"


def capped(default: int, limit: str, demo: bool) -> int | None:
    """The embedded demo caps lengths so that it finishes on a CPU; it never raises a benchmark's default."""
    return min(default, DEFAULT_LIMITS[limit]) if demo else None


def overridden(paper: GenerationConfig, **overrides: Any) -> GenerationConfig:
    return paper.model_copy(update={k: v for k, v in overrides.items() if v is not None})


def generation_settings(settings: RunSettings, paper: GenerationConfig, demo: bool) -> GenerationConfig:
    tokens = settings.max_new_tokens or capped(paper.max_new_tokens, "max_new_tokens", demo)
    return overridden(
        paper, max_new_tokens=tokens, temperature=settings.temperature, chat_template=settings.chat_template
    )


def judge_settings(settings: RunSettings, paper: GenerationConfig, demo: bool) -> GenerationConfig:
    tokens = settings.judge_max_new_tokens or capped(paper.max_new_tokens, "judge_max_new_tokens", demo)
    return overridden(paper, max_new_tokens=tokens, temperature=settings.judge_temperature)


def judge_samples(samples: int | None, settings: GenerationConfig) -> int:
    """K judge samples (default 1), refused when the judge is greedy and K samples would all be the same."""
    samples = samples or 1
    problem = samples_problem(samples, settings)
    if problem:
        raise refused("judge_samples", problem, str(samples))
    return samples


def benchmark_from(name_config: str, settings: RunSettings, model: str | None = None, run: bool = True) -> Benchmark:
    """`NAME[:CONFIG]`, `benchmark_args` and `baseline` -> the benchmark for `model`, its options checked; `run`: it
    is to be judged too, so a pairwise benchmark needs its baseline."""
    name, _, config_name = name_config.partition(":")
    if name not in benchmark_names():
        raise refused("benchmark", f"unknown benchmark {name!r}; choose one of {', '.join(benchmark_names())}")
    options = with_baseline(name, dict(settings.benchmark_args), settings.baseline)
    try:
        benchmark = create_benchmark(name, config_name or None, options, model)
    except ValidationError as error:
        raise benchmark_arg_problem(name, options, error) from None
    except (ValueError, KeyError) as error:
        raise refused("benchmark", str(error).strip("'\"")) from None
    if run and lacks_baseline(benchmark):
        raise refused("baseline", f"{name} judges the model against a baseline: give one (e.g. a run folder)")
    return benchmark


def benchmark_arg_problem(name: str, options: dict[str, Any], error: ValidationError) -> ValueError:
    """`benchmark_args: per_scenario='abc': longgenbench: Input should be a valid integer ...` (the first problem)."""
    problem = error.errors(include_url=False)[0]
    key = str(problem["loc"][0]) if problem["loc"] else "?"
    if problem["type"] == "extra_forbidden":
        fields = ", ".join(benchmark_class(name).Args.model_fields) or "none"
        return refused("benchmark_args", f"not an option of {name}; its options: {fields}", key)
    message = f"{name}: {problem['msg'].removeprefix('Value error, ')}"
    if key == "baseline":
        return refused("baseline", message, str(options[key]))
    return refused("benchmark_args", message, f"{key}={options.get(key)!r}")


def lacks_baseline(benchmark: Benchmark) -> bool:
    """A benchmark with a `baseline` option that is not set (a run folder without one can only generate)."""
    return "baseline" in type(benchmark.args).model_fields and benchmark.args.baseline is None


def with_baseline(name: str, options: dict[str, Any], baseline: str | None) -> dict[str, Any]:
    """`baseline` as the benchmark option `baseline`, for the benchmarks that have one."""
    if baseline is None:
        return options
    if "baseline" not in benchmark_class(name).Args.model_fields:
        pairwise = [n for n in benchmark_names() if "baseline" in benchmark_class(n).Args.model_fields]
        raise refused("baseline", f"{name} compares with no baseline; pairwise benchmarks do ({', '.join(pairwise)})")
    if options.get("baseline", baseline) != baseline:
        raise refused("baseline", f"{baseline!r} and benchmark_args baseline={options['baseline']!r} disagree")
    return options | {"baseline": baseline}


def dataset_fields(settings: RunSettings, benchmark: Benchmark) -> dict[str, Any]:
    """The RunConfig fields that say which rows: benchmark, config, options and dataset."""
    return {
        "benchmark": benchmark.name,
        "benchmark_config": benchmark.config,
        "benchmark_args": benchmark.args.model_dump(mode="json"),
        "dataset": settings.dataset,
        "dataset_revision": settings.dataset_revision,
        "source": settings.source,
    }


def build_config(
    benchmark: str, model: str | None, judge: str | None, settings: RunSettings, demo: bool = False, run: bool = True
) -> RunConfig:
    """The run's configuration; `demo`: the embedded demo's caps (short outputs, one row per group, one attempt)."""
    spec = backend_spec(model or DEFAULT_MODEL, settings.model_args)
    found = benchmark_from(benchmark, settings, spec.model, run)  # a display name never changes a setting
    paper = found.paper_settings()
    if judge is None and run:
        raise refused("judge", "run judges what it generates: give a judge (BACKEND:MODEL), or only generate")
    if judge is None and settings.judge_args:
        raise refused("judge_args", "given without a judge (BACKEND:MODEL) to take them")
    if judge is None and settings.judge_name:
        raise refused("judge_name", "given without a judge (BACKEND:MODEL) to name")
    judge_spec = backend_spec(judge, settings.judge_args, "judge") if judge else None
    judging = judge_settings(settings, paper.judge, demo)
    config = RunConfig(
        **dataset_fields(settings, found),
        selection={
            "limit": settings.limit,
            "per_group": settings.per_group or (DEFAULT_LIMITS["per_group"] if demo else None),
            "groups": list(settings.subcategory),
            "shortest": settings.shortest or demo,
        },
        model=spec,
        generation=generation_settings(settings, paper.generation, demo),
        judge=judge_spec,
        judge_generation=judging,
        judge_samples=judge_samples(settings.judge_samples, judging),
        judge_attempts=settings.judge_attempts or (1 if demo else paper.judge_attempts),
        constrained_judge=constrained_judge(settings.constrained_judge, judge_spec),
        parser=checked_parser(found, settings.parser),
        strip_think=settings.strip_think,
        name=settings.name,
        judge_name=settings.judge_name,
    )
    check_model_found(spec)
    check_model_found(judge_spec, "judge")
    return config
