"""Command-line arguments of the run commands, mapped onto the Python API's settings (inference/api/settings.py).

All checking is the API's (`build_config`): a refused setting is a ConfigError, printed naming its flag."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from longform_eval.common.arg_types import dataset_folder_or_repo, finite_float, source_folder, temperature
from longform_eval.common.errors import ConfigError

from ..api import config_build
from ..api.config_build import DEFAULT_LIMITS, DEFAULT_MODEL
from ..api.settings import RunSettings, settings_from
from ..backends import check_options
from ..benchmarks import Benchmark, benchmark_names
from ..config import ModelSpec, options_from, parse_model_args
from ..limits import JUDGE_ATTEMPTS, JUDGE_SAMPLES, NEW_TOKENS, ROWS
from ..runner import RunConfig
from ..yaml_files import options_file

DEFAULT_BENCHMARKS = ("hellobench:all", "longgenbench:short")
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
        parser.add_argument("--name", help="the model's display name in tables and plots (default: BACKEND:MODEL)")
    add_backend_arguments(parser, "judge", f"of the judge (default {DEFAULT_MODEL} for the demo)")
    parser.add_argument("--judge-name", help="the judge's display name in tables and plots (default: BACKEND:MODEL)")
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


FLAGS = {
    "model_args": "--model-arg",
    "judge_args": "--judge-arg",
    "benchmark_args": "--benchmark-arg",
    "out": "--out",
    "per_group": "--per-group",
    "constrained_judge": "--constrained-judge",
    "strip_think": "--no-strip-think",
}
SETTINGS = (
    "limit",
    "per_group",
    "shortest",
    "max_new_tokens",
    "temperature",
    "judge_max_new_tokens",
    "judge_temperature",
    "judge_attempts",
    "judge_samples",
    "parser",
    "baseline",
    "dataset",
    "dataset_revision",
    "source",
    "force",
    "name",
    "judge_name",
)


def flag_of(field: str) -> str:
    return FLAGS.get(field, f"--{field.replace('_', '-')}")


def flag_line(error: ConfigError) -> str:
    """A ConfigError as the CLI says it: naming the flag (`--model-arg foo: not an option of ...`)."""
    flag = flag_of(error.field)
    return f"{flag} {error.subject}: {error.detail}" if error.subject else f"{flag}: {error.detail}"


def flag_options(name: str | None, pairs: list[str] | None, file: Path | None, role: str) -> dict[str, Any]:
    """The options of `--ROLE-config FILE` and `--ROLE-arg`; a bad one in the file is blamed on the file."""
    if file and name:
        check_options(ModelSpec.parse(name, options_file(file, f"--{role}-config")), f"--{role}-config {file}:")
    return options_from(pairs, file, role)


def on_off(value: str | None) -> bool | None:
    return None if value is None else value == "on"


def settings_of(args: argparse.Namespace, model: str | None = None, judge: str | None = None) -> dict[str, Any]:
    """The API's keyword settings the flags give (a flag not given is no setting)."""
    given = {name: getattr(args, name, None) for name in SETTINGS}
    given |= {
        "subcategory": tuple(getattr(args, "subcategory", None) or ()) or None,
        "chat_template": on_off(getattr(args, "chat_template", None)),
        "constrained_judge": on_off(getattr(args, "constrained_judge", None)),
        "strip_think": False if getattr(args, "no_strip_think", False) else None,
        "benchmark_args": parse_model_args(getattr(args, "benchmark_arg", None), "--benchmark-arg") or None,
        "judge_args": flag_options(judge, args.judge_arg, args.judge_config, "judge") if judge else None,
    }
    if model:
        given["model_args"] = flag_options(model, args.model_arg, args.model_config, "model")
    return {name: value for name, value in given.items() if value is not None}


def run_settings(args: argparse.Namespace, model: str | None, judge: str | None) -> RunSettings:
    return settings_from(settings_of(args, model, judge))


def backend_spec(name: str, pairs: list[str] | None, file: Path | None, role: str = "model") -> ModelSpec:
    """`BACKEND:MODEL` with its options, each checked (name, type, range) and blamed on the file or flag giving it."""
    try:
        return config_build.backend_spec(name, flag_options(name, pairs, file, role), role)
    except ConfigError as error:
        raise ValueError(flag_line(error)) from None


def judge_spec(args: argparse.Namespace, default: str | None) -> ModelSpec | None:
    name = args.judge or default
    return backend_spec(name, args.judge_arg, args.judge_config, "judge") if name else None


def constrained_judge(args: argparse.Namespace, judge: ModelSpec | None) -> bool:
    return config_build.constrained_judge(on_off(args.constrained_judge), judge)


def benchmark_from(args: argparse.Namespace, benchmark_name: str) -> Benchmark:
    """`NAME[:CONFIG]`, `--benchmark-arg k=v` and `--baseline` -> the benchmark, its options checked (no model)."""
    settings = settings_from({k: v for k, v in settings_of(args).items() if k in ("benchmark_args", "baseline")})
    return config_build.benchmark_from(benchmark_name, settings, None, run=False)


def dataset_fields(args: argparse.Namespace, benchmark: Benchmark) -> dict[str, Any]:
    return config_build.dataset_fields(settings_from(settings_of(args)), benchmark)


def build_config(args: argparse.Namespace, benchmark_name: str, demo: bool) -> RunConfig:
    """Every option is checked here (by the API), before a run folder is touched."""
    model, judge = args.model or DEFAULT_MODEL, args.judge or (DEFAULT_MODEL if demo else None)
    settings = run_settings(args, model, judge)
    return config_build.build_config(benchmark_name, model, judge, settings, demo, run=args.command == "run")


__all__ = ["DEFAULT_LIMITS", "DEFAULT_MODEL", "build_config", "flag_line", "options_from", "settings_of"]
