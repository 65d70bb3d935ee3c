"""Command-line arguments of the run commands, and the typed configuration they make."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from longform_eval.common.arg_types import dataset_folder_or_repo, finite_float, source_folder, temperature

from ..backends import check_options
from ..benchmarks import Benchmark, benchmark_class, benchmark_names, create_benchmark
from ..config import GenerationConfig, ModelSpec, parse_model_args
from ..limits import JUDGE_ATTEMPTS, JUDGE_SAMPLES, NEW_TOKENS, ROWS
from ..runner import RunConfig
from ..runner.judge_samples import samples_problem
from ..yaml_files import options_file

DEFAULT_MODEL = "local:default"
DEFAULT_BENCHMARKS = ("hellobench:all", "longgenbench:short")
DEFAULT_OUT = Path("runs/default")
# The embedded demo must finish within 15 minutes on 2 CPU cores: short generations, one judge attempt.
DEFAULT_LIMITS = {"max_new_tokens": 160, "judge_max_new_tokens": 640, "per_group": 1}
SMALLEST_DIFFERENCE = 1e-9  # --detect


def add_selection_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--benchmark",
        action="append",
        help=f"NAME[:CONFIG], NAME one of {', '.join(benchmark_names())}; repeat for several "
        "(default: the embedded demo subset)",
    )
    parser.add_argument(
        "--benchmark-arg", action="append", help="benchmark option KEY=VALUE (repeatable; typed and checked)"
    )
    parser.add_argument(
        "--baseline",
        help="pairwise benchmarks: the answers to compare with, 'reference' (the dataset's reference answers) or a "
        "run folder of another model (the same as --benchmark-arg baseline=...)",
    )
    parser.add_argument(
        "--dataset",
        type=dataset_folder_or_repo,
        help="dataset folder or Hub repo id (default: built from the source files)",
    )
    parser.add_argument("--dataset-revision", help="Hub revision (branch, tag or commit) of --dataset")
    parser.add_argument(
        "--source",
        type=source_folder,
        help="source folder for the default dataset build (as in `longform-eval build`)",
    )
    parser.add_argument("--limit", type=ROWS.argument(), help="first N samples")
    parser.add_argument("--per-group", type=ROWS.argument(), help="first N samples per group (task, scenario, ...)")
    parser.add_argument(
        "--subcategory",
        action="append",
        default=[],
        help="keep only rows whose group or subgroup (task, subcategory, scenario, ...) is this (repeatable)",
    )
    parser.add_argument(
        "--shortest",
        action="store_true",
        help="with --per-group/--limit: take the rows quickest to evaluate first (shortest prompt; LongGenBench: "
        "earliest check, so that a short output is scored) instead of the first ones (the embedded demo does)",
    )


def add_power_arguments(parser: argparse.ArgumentParser) -> None:
    """With --dry-run: how many prompts a difference needs, from the variance of scored reference runs."""
    parser.add_argument(
        "--power-reference",
        action="append",
        type=scored_run_folder,
        metavar="RUN",
        help="with --dry-run and --detect: a scored run of the planned benchmark config whose variance the plan "
        "rests on; give two for their paired SE (one alone is conservative: no pairing gain)",
    )
    parser.add_argument(
        "--detect",
        type=positive_number,
        metavar="D",
        help="with --dry-run: the difference to detect at 80%% power, alpha 0.05, in the figure's own units",
    )
    parser.add_argument(
        "--power-figure", metavar="NAME", help="the figure the plan is for (default: the benchmark's headline)"
    )


def positive_number(text: str) -> float:
    """A difference to detect: at least SMALLEST_DIFFERENCE (a plan for less would overflow a float)."""
    value = finite_float()(text)
    if value < SMALLEST_DIFFERENCE:
        raise argparse.ArgumentTypeError(
            f"expected a number >= {SMALLEST_DIFFERENCE:g}, got {text!r} (a smaller difference is below any "
            "figure's precision)"
        )
    return value


def scored_run_folder(text: str) -> Path:
    """A run folder that holds scores.json."""
    if not (Path(text) / "scores.json").is_file():
        raise argparse.ArgumentTypeError(f"{text}: no scores.json there; give a scored run folder")
    return Path(text)


def add_backend_arguments(parser: argparse.ArgumentParser, role: str, what: str) -> None:
    """`--ROLE BACKEND:MODEL`, `--ROLE-arg KEY=VALUE` (repeatable), `--ROLE-config FILE`."""
    parser.add_argument(f"--{role}", help=f"BACKEND:MODEL {what}")
    parser.add_argument(f"--{role}-arg", action="append", help=f"{role} backend option KEY=VALUE (repeatable)")
    parser.add_argument(f"--{role}-config", type=Path, help=f"YAML file of {role} backend options")


def add_model_arguments(parser: argparse.ArgumentParser, judge_only: bool = False) -> None:
    if not judge_only:
        add_backend_arguments(parser, "model", f"to evaluate (default {DEFAULT_MODEL})")
        parser.add_argument(
            "--max-new-tokens", type=NEW_TOKENS.argument(), help="override the paper's generation length"
        )
        parser.add_argument("--temperature", type=temperature, help="override the generation temperature")
        parser.add_argument(
            "--chat-template", choices=["on", "off"], help="override chat-template use (a deviation from the paper)"
        )
    add_backend_arguments(parser, "judge", f"of the judge (default {DEFAULT_MODEL} for the demo)")
    parser.add_argument("--judge-max-new-tokens", type=NEW_TOKENS.argument(), help="override the judge's max tokens")
    parser.add_argument(
        "--judge-attempts", type=JUDGE_ATTEMPTS.argument(), help="attempts per judge call until it parses"
    )
    parser.add_argument(
        "--judge-samples",
        type=JUDGE_SAMPLES.argument(),
        help="judge every call K times with seeds seed, seed+1, ... (default 1, at most 100); the row score is the "
        "mean of its scored samples, and scores.json says how much of each figure's variance is the judge's",
    )
    parser.add_argument("--judge-temperature", type=temperature, help="override the judge's sampling temperature")
    parser.add_argument(
        "--parser",
        help="judge output parser (default: the paper's, e.g. upstream; variants per benchmark: lenient, strict, ...)",
    )
    parser.add_argument(
        "--constrained-judge",
        choices=["on", "off"],
        help="constrain judge replies to the benchmark's JSON schema (default: on for local:, off otherwise; "
        "on is a deviation from the paper)",
    )
    parser.add_argument("--no-strip-think", action="store_true", help="keep <think>...</think> when judging")


def options_from(pairs: list[str] | None, file: Path | None, role: str = "model") -> dict[str, Any]:
    """`--ROLE-config FILE` (a YAML mapping of options), then `--ROLE-arg KEY=VALUE` over it."""
    options = options_file(file, f"--{role}-config") if file else {}
    options.update(parse_model_args(pairs, f"--{role}-arg"))
    return options


def backend_spec(name: str, pairs: list[str] | None, file: Path | None, role: str = "model") -> ModelSpec:
    """`BACKEND:MODEL` with its options, each checked (name, type, range) and blamed on the file or flag giving it."""
    if file:
        check_options(ModelSpec.parse(name, options_file(file, f"--{role}-config")), f"--{role}-config {file}:")
    spec = ModelSpec.parse(name, options_from(pairs, file, role))
    check_options(spec, f"--{role}-arg")
    return spec


def judge_spec(args: argparse.Namespace, default: str | None) -> ModelSpec | None:
    name = args.judge or default
    return backend_spec(name, args.judge_arg, args.judge_config, "judge") if name else None


def model_spec(args: argparse.Namespace) -> ModelSpec:
    return backend_spec(args.model or DEFAULT_MODEL, args.model_arg, args.model_config)


def checked_parser(benchmark: Benchmark, name: str | None) -> str:
    parser = name or benchmark.paper_settings().parser
    if parser not in benchmark.parsers:
        raise ValueError(f"--parser {parser!r}: {benchmark.name} has {', '.join(benchmark.parsers)}")
    return parser


def constrained_judge(args: argparse.Namespace, judge: ModelSpec | None) -> bool:
    """On by default for the embedded judge, which cannot follow the paper's free-text format reliably."""
    if args.constrained_judge:
        return args.constrained_judge == "on"
    return judge is not None and judge.backend == "local"


def capped(default: int, limit: str, demo: bool) -> int | None:
    """The embedded demo caps lengths so that it finishes on a CPU; it never raises a benchmark's default."""
    return min(default, DEFAULT_LIMITS[limit]) if demo else None


def generation_settings(args: argparse.Namespace, paper: GenerationConfig, demo: bool) -> GenerationConfig:
    overrides = {
        "max_new_tokens": args.max_new_tokens or capped(paper.max_new_tokens, "max_new_tokens", demo),
        "temperature": args.temperature,
        "chat_template": None if args.chat_template is None else args.chat_template == "on",
    }
    return paper.model_copy(update={k: v for k, v in overrides.items() if v is not None})


def judge_settings(args: argparse.Namespace, paper: GenerationConfig, demo: bool) -> GenerationConfig:
    tokens = args.judge_max_new_tokens or capped(paper.max_new_tokens, "judge_max_new_tokens", demo)
    overrides = {"max_new_tokens": tokens, "temperature": args.judge_temperature}
    return paper.model_copy(update={k: v for k, v in overrides.items() if v is not None})


def judge_samples(args: argparse.Namespace, settings: GenerationConfig) -> int:
    """`--judge-samples K` (default 1), refused when the judge is greedy and K samples would all be the same."""
    samples = args.judge_samples or 1
    problem = samples_problem(samples, settings)
    if problem:
        raise ValueError(problem)
    return samples


def benchmark_from(args: argparse.Namespace, benchmark_name: str, model: str | None = None) -> Benchmark:
    """`NAME[:CONFIG]`, `--benchmark-arg k=v` and `--baseline` -> the benchmark for `model`, its options checked."""
    name, _, config_name = benchmark_name.partition(":")
    options = parse_model_args(args.benchmark_arg, "--benchmark-arg")
    options = with_baseline(name, options, getattr(args, "baseline", None))
    try:
        benchmark = create_benchmark(name, config_name or None, options, model)
    except ValidationError as error:
        raise ValueError(benchmark_arg_problem(name, options, error)) from None
    if getattr(args, "command", None) == "run" and lacks_baseline(benchmark):
        raise ValueError(f"{name} judges the model against a baseline: pass --baseline (e.g. a run folder)")
    return benchmark


def benchmark_arg_problem(name: str, options: dict[str, Any], error: ValidationError) -> str:
    """`--benchmark-arg per_scenario='abc': longgenbench: Input should be a valid integer ...` (the first problem)."""
    problem = error.errors(include_url=False)[0]
    key = str(problem["loc"][0]) if problem["loc"] else "?"
    flag = f"--baseline {options[key]}" if key == "baseline" else f"--benchmark-arg {key}={options.get(key)!r}"
    if problem["type"] == "extra_forbidden":
        fields = ", ".join(benchmark_class(name).Args.model_fields) or "none"
        return f"--benchmark-arg {key}: not an option of {name}; its options: {fields}"
    return f"{flag}: {name}: {problem['msg'].removeprefix('Value error, ')}"


def lacks_baseline(benchmark: Benchmark) -> bool:
    """A benchmark with a `baseline` option that is not set (a run folder without one can only generate)."""
    return "baseline" in type(benchmark.args).model_fields and benchmark.args.baseline is None


def with_baseline(name: str, options: dict[str, Any], baseline: str | None) -> dict[str, Any]:
    """`--baseline` as the benchmark option `baseline`, for the benchmarks that have one."""
    if baseline is None:
        return options
    if "baseline" not in benchmark_class(name).Args.model_fields:
        pairwise = [n for n in benchmark_names() if "baseline" in benchmark_class(n).Args.model_fields]
        raise ValueError(
            f"--baseline: {name} compares with no baseline; pairwise benchmarks do ({', '.join(pairwise)})"
        )
    if options.get("baseline", baseline) != baseline:
        raise ValueError(f"--baseline {baseline!r} and --benchmark-arg baseline={options['baseline']!r} disagree")
    return options | {"baseline": baseline}


def dataset_fields(args: argparse.Namespace, benchmark: Benchmark) -> dict[str, Any]:
    """The RunConfig fields that say which rows: benchmark, config, options and dataset."""
    return {
        "benchmark": benchmark.name,
        "benchmark_config": benchmark.config,
        "benchmark_args": benchmark.args.model_dump(mode="json"),
        "dataset": args.dataset,
        "dataset_revision": args.dataset_revision,
        "source": args.source,
    }


def build_config(args: argparse.Namespace, benchmark_name: str, demo: bool) -> RunConfig:
    """Every option is checked here, before a run folder is touched."""
    model = model_spec(args)
    benchmark = benchmark_from(args, benchmark_name, model.model)
    paper = benchmark.paper_settings()
    return RunConfig(
        **dataset_fields(args, benchmark),
        selection={
            "limit": args.limit,
            "per_group": args.per_group or (DEFAULT_LIMITS["per_group"] if demo else None),
            "groups": tuple(args.subcategory),
            "shortest": args.shortest or demo,
        },
        model=model,
        generation=generation_settings(args, paper.generation, demo),
        judge=(judge := judge_spec(args, DEFAULT_MODEL if demo else None)),
        judge_generation=(judging := judge_settings(args, paper.judge, demo)),
        judge_samples=judge_samples(args, judging),
        judge_attempts=args.judge_attempts or (1 if demo else paper.judge_attempts),
        constrained_judge=constrained_judge(args, judge),
        parser=checked_parser(benchmark, args.parser),
        strip_think=not args.no_strip_think,
    )
