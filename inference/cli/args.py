"""Command-line arguments of the run commands, mapped onto the Python API's settings (inference/api/settings.py).

The settings' flags are generated from RunSettings (setting_flags.py); here are the others: the benchmark, the model
and the judge with their backend options, the run folder, and the power plan of a dry run. All checking is the API's
(config_build): a refused setting is a ConfigError, printed naming its flag (`flag_line`)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from longform_eval.common.arg_types import finite_float, out_folder
from longform_eval.common.errors import ConfigError

from ..api.defaults import DEFAULT_LIMITS, DEFAULT_MODEL, DEFAULT_OUT
from ..api.settings import JUDGE_SETTINGS, RunSettings, settings_from
from ..benchmarks.registry import benchmark_names
from ..config import ModelSpec, options_from
from ..yaml_files import options_file
from . import setting_flags
from .setting_flags import add_settings_arguments, flag_of

DEFAULT_BENCHMARKS = ("hellobench:all", "longgenbench:short")
SMALLEST_DIFFERENCE = 1e-9  # --detect


def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    """`run` and `generate`: the benchmark, the model, the judge, every setting, the run folder and --dry-run."""
    parser.add_argument(
        "--benchmark",
        action="append",
        metavar="NAME[:CONFIG]",
        help=f"NAME one of {', '.join(benchmark_names())}; repeat for several (default: "
        f"{' and '.join(DEFAULT_BENCHMARKS)}, the embedded demo's subset when --model is not given either)",
    )
    add_backend_arguments(parser, "model", f"to evaluate (default: {DEFAULT_MODEL})")
    add_backend_arguments(
        parser, "judge", f"of the judge (default: {DEFAULT_MODEL} in the embedded demo; `run` needs one otherwise)"
    )
    add_settings_arguments(parser, RunSettings.model_fields, run=True)
    parser.add_argument(
        "--out",
        type=out_folder,
        help=f"run folder (default: {DEFAULT_OUT}/<benchmark>, as the Python API's; with several benchmarks: "
        "OUT/<benchmark>)",
    )
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="print the calls it would make and the token limits chosen, write nothing, and stop",
    )
    add_power_arguments(parser)


def add_judge_arguments(parser: argparse.ArgumentParser) -> None:
    """`judge FOLDER`: the judge and the judge settings (`le.judge`'s); what is not given stays as stored."""
    add_backend_arguments(parser, "judge", "of the judge (default: the one the run folder names)")
    add_settings_arguments(parser, JUDGE_SETTINGS)


def add_power_arguments(parser: argparse.ArgumentParser) -> None:
    """With --dry-run: how many prompts a difference needs, from the variance of scored reference runs."""
    parser.add_argument(
        "--power-reference",
        action="append",
        type=scored_run_folder,
        metavar="RUN",
        help="with --dry-run and --detect: a scored run of the planned benchmark config whose variance the plan "
        "rests on; give two for their paired SE (one alone is conservative: no pairing gain); default: none, and "
        "--detect needs one",
    )
    parser.add_argument(
        "--detect",
        type=positive_number,
        metavar="D",
        help="with --dry-run: the difference to detect at 80%% power, alpha 0.05, in the figure's own units "
        "(default: none, no power plan)",
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
    if not (Path(text) / "scores.json").exists():  # a FIFO or a folder there is named when it is read
        raise argparse.ArgumentTypeError(f"{text}: no scores.json there; give a scored run folder")
    return Path(text)


def add_backend_arguments(parser: argparse.ArgumentParser, role: str, what: str) -> None:
    """`--ROLE BACKEND:MODEL`, `--ROLE-arg KEY=VALUE` (repeatable), `--ROLE-config FILE`."""
    parser.add_argument(f"--{role}", metavar="BACKEND:MODEL", help=f"BACKEND:MODEL {what}")
    parser.add_argument(
        f"--{role}-arg",
        action="append",
        metavar="KEY=VALUE",
        help=f"{role} backend option KEY=VALUE, repeatable (default: the backend's own)",
    )
    parser.add_argument(
        f"--{role}-config", type=Path, metavar="FILE", help=f"YAML file of {role} backend options (default: none)"
    )


def flag_line(error: ConfigError) -> str:
    """A ConfigError as the CLI says it: naming the flag (`--model-arg foo: not an option of ...`)."""
    flag = flag_of(error.field)
    return f"{flag} {error.subject}: {error.detail}" if error.subject else f"{flag}: {error.detail}"


def flag_options(name: str | None, pairs: list[str] | None, file: Path | None, role: str) -> dict[str, Any]:
    """The options of `--ROLE-config FILE` and `--ROLE-arg`; a bad one in the file is blamed on the file."""
    if file and name:
        from ..backends import check_options  # the backends' code: imported when a command runs

        check_options(ModelSpec.parse(name, options_file(file, f"--{role}-config")), f"--{role}-config {file}:")
    return options_from(pairs, file, role)


def settings_of(args: argparse.Namespace, model: str | None = None, judge: str | None = None) -> dict[str, Any]:
    """The API's keyword settings the flags give (a flag not given is no setting), the backend options of the model
    and the judge named included."""
    given = setting_flags.settings_of(args)
    if judge:
        given["judge_args"] = flag_options(judge, args.judge_arg, args.judge_config, "judge")
    if model:
        given["model_args"] = flag_options(model, args.model_arg, args.model_config, "model")
    return given


def run_settings(args: argparse.Namespace, model: str | None, judge: str | None) -> RunSettings:
    return settings_from(settings_of(args, model, judge))


__all__ = ["DEFAULT_LIMITS", "DEFAULT_MODEL", "flag_line", "options_from", "run_settings", "settings_of"]
