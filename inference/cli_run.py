"""`longform-eval run | generate | judge | score | report | import-generations`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import yaml

from .backends import check_options, create_backend
from .benchmarks import Selection, load_benchmark
from .config import GenerationConfig, ModelSpec, parse_model_args
from .parallel import is_main_process
from .report import print_leaderboard, write_report
from .runner import Run, RunConfig

DEFAULT_MODEL = "local:default"
DEFAULT_BENCHMARKS = ("hellobench:all", "longgenbench:short")
DEFAULT_OUT = Path("runs/default")
# The embedded demo must finish within 15 minutes on 2 CPU cores: short generations, one judge attempt.
DEFAULT_LIMITS = {"max_new_tokens": 160, "judge_max_new_tokens": 640, "per_group": 1}


def add_selection_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--benchmark",
        action="append",
        help="hellobench[:CONFIG] or longgenbench[:CONFIG]; repeat for several (default: the embedded demo subset)",
    )
    parser.add_argument("--limit", type=int, help="first N samples")
    parser.add_argument("--per-group", type=int, help="first N samples per task (hellobench) or scenario")
    parser.add_argument(
        "--subcategory",
        action="append",
        default=[],
        help="keep only these subcategories, tasks, scenarios or sub-task types (repeatable)",
    )
    parser.add_argument(
        "--shortest",
        action="store_true",
        help="with --per-group/--limit: take the shortest prompts instead of the first ones (the embedded demo does)",
    )
    parser.add_argument("--source", help="benchmark source folder (default as in `longform-eval build`)")
    parser.add_argument("--generator-seed", type=int, default=0, help="seed of longgenbench:generated_*")
    parser.add_argument(
        "--generator-per-scenario", type=int, default=100, help="items per scenario of longgenbench:generated_*"
    )
    parser.add_argument(
        "--verdict-rule", choices=["paper", "strict"], default="paper", help="longgenbench yes/no parsing"
    )


def add_model_arguments(parser: argparse.ArgumentParser, judge_only: bool = False) -> None:
    if not judge_only:
        parser.add_argument("--model", help=f"BACKEND:MODEL to evaluate (default {DEFAULT_MODEL})")
        parser.add_argument("--model-arg", action="append", help="backend option KEY=VALUE (repeatable)")
        parser.add_argument("--model-config", type=Path, help="YAML file of backend options")
        parser.add_argument("--max-new-tokens", type=int, help="override the paper's generation length")
        parser.add_argument("--temperature", type=float, help="override the generation temperature")
        parser.add_argument(
            "--chat-template",
            choices=["on", "off"],
            help="override chat-template use (longgenbench with a chat template is a deviation from the paper)",
        )
    parser.add_argument("--judge", help=f"BACKEND:MODEL of the judge (default {DEFAULT_MODEL} for the demo)")
    parser.add_argument("--judge-arg", action="append", help="judge backend option KEY=VALUE (repeatable)")
    parser.add_argument("--judge-config", type=Path, help="YAML file of judge backend options")
    parser.add_argument("--judge-max-new-tokens", type=int, help="override the judge's max tokens")
    parser.add_argument("--judge-attempts", type=int, help="attempts per judge call until it parses")
    parser.add_argument("--no-strip-think", action="store_true", help="keep <think>...</think> when judging")


def add_commands(subparsers: argparse._SubParsersAction) -> None:
    run = subparsers.add_parser("run", help="generate -> judge -> score -> report (resumable)")
    add_selection_arguments(run)
    add_model_arguments(run)
    run.add_argument("--out", type=Path, help=f"run folder (default {DEFAULT_OUT}/<benchmark>)")
    run.add_argument("--force", action="store_true", help="continue a run even if its configuration changed")
    run.add_argument("--dry-run", action="store_true", help="print the calls it would make, and stop")
    run.set_defaults(handler=lambda a: command_run(a, stages=("generate", "judge", "score", "report")))

    generate = subparsers.add_parser("generate", help="only generate (resumable)")
    add_selection_arguments(generate)
    add_model_arguments(generate)
    generate.add_argument("--out", type=Path, required=True)
    generate.add_argument("--force", action="store_true")
    generate.add_argument("--dry-run", action="store_true")
    generate.set_defaults(handler=lambda a: command_run(a, stages=("generate",)))

    judge = subparsers.add_parser("judge", help="judge the generations of a run folder (resumable)")
    judge.add_argument("folder", type=Path)
    add_model_arguments(judge, judge_only=True)
    judge.add_argument("--force", action="store_true")
    judge.set_defaults(handler=command_judge)

    score = subparsers.add_parser("score", help="compute scores.json of a run folder")
    score.add_argument("folder", type=Path)
    score.set_defaults(handler=command_score)

    report = subparsers.add_parser("report", help="write report.md + plots; several folders: a leaderboard")
    report.add_argument("folders", type=Path, nargs="+")
    report.set_defaults(handler=command_report)

    serve = subparsers.add_parser("serve", help="serve a model over an OpenAI-compatible HTTP API")
    serve.add_argument("model", help="BACKEND:MODEL, e.g. local:default")
    serve.add_argument("--model-arg", action="append", help="backend option KEY=VALUE (repeatable)")
    serve.add_argument("--model-config", type=Path, help="YAML file of backend options")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.set_defaults(handler=command_serve)

    imported = subparsers.add_parser("import-generations", help="import released HelloBench responses")
    imported.add_argument("model_dir", type=Path, help="e.g. ../shared/data/hellobench/generations/main_exp/gpt4o_0806")
    imported.add_argument("--out", type=Path, required=True)
    imported.add_argument("--config", default="all", help="hellobench config (default all)")
    imported.add_argument("--source")
    imported.set_defaults(handler=command_import)


def options_from(pairs: list[str] | None, file: Path | None) -> dict[str, Any]:
    options = yaml.safe_load(file.read_text()) if file else {}
    options.update(parse_model_args(pairs))
    return options


def judge_spec(args: argparse.Namespace, default: str | None) -> ModelSpec | None:
    name = args.judge or default
    if not name:
        return None
    spec = ModelSpec.parse(name, options_from(args.judge_arg, args.judge_config))
    check_options(spec, "--judge-arg")
    return spec


def model_spec(args: argparse.Namespace) -> ModelSpec:
    spec = ModelSpec.parse(args.model or DEFAULT_MODEL, options_from(args.model_arg, args.model_config))
    check_options(spec, "--model-arg")
    return spec


def longgenbench_options(args: argparse.Namespace, name: str) -> dict[str, Any]:
    return {"seed": args.generator_seed, "per_scenario": args.generator_per_scenario} if name == "longgenbench" else {}


def capped(default: int, limit: str, demo: bool) -> int | None:
    """The embedded demo caps lengths so that it finishes on a CPU; it never raises a benchmark's default."""
    return min(default, DEFAULT_LIMITS[limit]) if demo else None


def build_config(args: argparse.Namespace, benchmark_name: str, demo: bool) -> RunConfig:
    name, _, config_name = benchmark_name.partition(":")
    default_config = {"hellobench": "all", "longgenbench": "short"}.get(name, "")
    selection = {
        "config": config_name or default_config,
        "limit": args.limit,
        "per_group": args.per_group or (DEFAULT_LIMITS["per_group"] if demo else None),
        "groups": tuple(args.subcategory),
        "shortest": args.shortest or demo,
    }
    benchmark = load_benchmark(name, Selection(**selection), args.source, **longgenbench_options(args, name))
    generation = benchmark.generation_defaults()
    overrides = {
        "max_new_tokens": args.max_new_tokens or capped(generation.max_new_tokens, "max_new_tokens", demo),
        "temperature": args.temperature,
        "chat_template": None if args.chat_template is None else args.chat_template == "on",
    }
    generation = generation.model_copy(update={k: v for k, v in overrides.items() if v is not None})
    judging = benchmark.judge_defaults()
    judge_tokens = args.judge_max_new_tokens or capped(judging.max_new_tokens, "judge_max_new_tokens", demo)
    if judge_tokens:
        judging = judging.model_copy(update={"max_new_tokens": judge_tokens})
    return RunConfig(
        benchmark=name,
        selection=selection,
        source=args.source,
        generator_seed=args.generator_seed,
        generator_per_scenario=args.generator_per_scenario,
        verdict_rule=args.verdict_rule,
        model=model_spec(args),
        generation=generation,
        judge=judge_spec(args, DEFAULT_MODEL if demo else None),
        judge_generation=judging,
        judge_attempts=args.judge_attempts or (1 if demo else benchmark.judge_attempts),
        strip_think=not args.no_strip_think,
    )


def command_run(args: argparse.Namespace, stages: tuple[str, ...]) -> int:
    demo = not args.model and not args.benchmark
    benchmarks = args.benchmark or list(DEFAULT_BENCHMARKS)
    folders = []
    backends: dict[str, Any] = {}

    def shared_backend(spec: ModelSpec):
        """One loaded model serves both roles when the model and the judge are the same."""
        key = spec.model_dump_json()
        if key not in backends:
            backends[key] = KeepOpen(create_backend(spec))
        return backends[key]

    configs = [(name, build_config(args, name, demo)) for name in benchmarks]  # every option checked first
    failed: list[Run] = []
    for benchmark_name, config in configs:
        out = (
            args.out
            if (args.out and len(benchmarks) == 1)
            else (args.out or DEFAULT_OUT) / benchmark_name.replace(":", "-")
        )
        run = Run(out, config, force=args.force)
        if args.dry_run:
            print_dry_run(run)
            continue
        if "generate" in stages:
            run.generate(shared_backend)
        if not is_main_process():
            continue
        if "judge" in stages:
            run.judge(shared_backend)
        if "score" in stages:
            run.score()
        if "report" in stages:
            write_report(run.folder)
        folders.append(run.folder)
        failed += [run] if run.failed else []
        print(f"{run.folder}: model calls {run.model_calls}, judge calls {run.judge_calls}", file=sys.stderr)
    for backend in backends.values():
        backend.inner.close()
    if folders and "score" in stages:
        print_leaderboard(folders)
    return report_failures(failed)


def report_failures(runs: list[Run]) -> int:
    """Failed calls are not results: say how many and why, and exit non-zero so that scripts notice."""
    if not runs:
        return 0
    for run in runs:
        total = sum(run.failed.values())
        print(
            f"{run.folder}: {total} calls failed and stay pending (logged in {run.failures.path}); "
            "run the same command again to retry them:",
            file=sys.stderr,
        )
        for reason, count in run.failed.most_common(5):
            print(f"  {count} x {reason}", file=sys.stderr)
    return 1


class KeepOpen:
    """Lets the runner call close() after each stage while the model stays loaded for the next one."""

    def __init__(self, inner):
        self.inner = inner
        self.name = inner.name

    def generate(self, requests, config, on_result=None):
        return self.inner.generate(requests, config, on_result=on_result)

    def close(self) -> None:
        pass


def print_dry_run(run: Run) -> None:
    pending = run.pending_generations()
    prompt_chars = sum(len(r.prompt or "".join(m["content"] for m in r.messages)) for r in pending)
    print(
        f"{run.folder}: {len(run.benchmark.rows)} samples; "
        f"{len(pending)} generation calls to {run.config.model.name if run.config.model else '-'}, "
        f"about {prompt_chars // 4:,} prompt tokens + up to "
        f"{len(pending) * run.config.generation.max_new_tokens:,} new tokens"
    )
    judge_calls = run.pending_judge_calls()
    print(
        f"  judge calls now pending: {len(judge_calls)} (more after generation) to "
        f"{run.config.judge.name if run.config.judge else '-'}, up to "
        f"{run.config.judge_attempts} attempts each, max {run.config.judge_generation.max_new_tokens} "
        "new tokens"
    )


def command_judge(args: argparse.Namespace) -> int:
    changes: dict[str, Any] = {"force": args.force}
    if args.judge:
        changes["judge"] = judge_spec(args, None).model_dump(mode="json")
    run = Run.open(args.folder, **changes)
    updates = {}
    if args.judge_max_new_tokens:
        updates["judge_generation"] = run.config.judge_generation.model_copy(
            update={"max_new_tokens": args.judge_max_new_tokens}
        ).model_dump(mode="json")
    if args.judge_attempts:
        updates["judge_attempts"] = args.judge_attempts
    if args.no_strip_think:
        updates["strip_think"] = False
    if updates:
        run = Run.open(args.folder, force=args.force, **updates)
    unscored = run.judge()
    print(f"judged; unscored judgements written: {unscored}")
    return report_failures([run] if run.failed else [])


def command_score(args: argparse.Namespace) -> int:
    run = Run.open(args.folder)
    run.score()
    print_leaderboard([run.folder])
    return 0


def command_report(args: argparse.Namespace) -> int:
    for folder in args.folders:
        print(write_report(folder))
    print_leaderboard(args.folders)
    return 0


def command_serve(args: argparse.Namespace) -> int:
    from .serve import ModelServer

    spec = ModelSpec.parse(args.model, options_from(args.model_arg, args.model_config))
    ModelServer(spec, args.host, args.port).serve_forever()
    return 0


def command_import(args: argparse.Namespace) -> int:
    from .importers import import_hellobench_generations

    benchmark = load_benchmark("hellobench", Selection(config=args.config), args.source)
    config = RunConfig(
        benchmark="hellobench",
        selection={"config": args.config},
        source=args.source,
        model=None,
        generation=benchmark.generation_defaults(),
        judge=None,
        judge_generation=benchmark.judge_defaults(),
        judge_attempts=benchmark.judge_attempts,
    )
    run, count = import_hellobench_generations(args.model_dir, args.out, config)
    print(f"imported {count} responses into {run.folder}", file=sys.stderr)
    return 0


__all__ = ["GenerationConfig", "add_commands"]
