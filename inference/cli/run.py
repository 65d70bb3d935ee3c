"""`longform-eval run | generate | judge | score | report | import-generations | serve`: their options; each
command's code (`run_commands.py`) is imported when it runs, so that `--help` imports no runner, report or Hub."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from longform_eval.common.arg_types import out_folder

from ..config import options_from
from ..hub.paths import hub_or_local_path
from .args import add_judge_arguments, add_run_arguments


def add_commands(subparsers: argparse._SubParsersAction) -> None:
    run = subparsers.add_parser("run", help="generate -> judge -> score -> report (resumable)")
    add_run_arguments(run)
    run.set_defaults(handler=later("command_run", stages=("generate", "judge", "score", "report")))

    generate = subparsers.add_parser("generate", help="only generate (resumable)")
    add_run_arguments(generate)
    generate.set_defaults(handler=later("command_run", stages=("generate",)))

    judge = subparsers.add_parser(
        "judge",
        help="judge the generations of a run folder (resumable)",
        description="Judge the generations of a run folder (resumable); a setting not given stays as the folder's "
        "config.yaml has it.",
    )
    judge.add_argument("folder", type=Path, help="the run folder whose generations to judge")
    add_judge_arguments(judge)
    judge.set_defaults(handler=later("command_judge"))

    score = subparsers.add_parser("score", help="compute scores.json of a run folder")
    score.add_argument("folder", type=Path, help="the run folder to score")
    score.set_defaults(handler=later("command_score"))

    report = subparsers.add_parser("report", help="write report.md + plots; several folders: a leaderboard")
    report.add_argument(
        "folders",
        type=hub_or_local_path,
        nargs="+",
        metavar="FOLDER",
        help="run folders; a run shared on the Hub as hf://datasets/ORG/NAME[/PATH] is reported in a local copy",
    )
    report.add_argument(
        "--out",
        type=out_folder,
        help="with two or more runs: the folder for comparisons.json (without it the comparison is printed, not "
        "written); with one hf:// run: the local folder for its copy and report (default runs/hf/ORG/NAME[/PATH])",
    )
    report.set_defaults(handler=later("command_report"))

    from .agreement_flags import add_agreement_command
    from .tools import add_tool_commands

    add_tool_commands(subparsers)
    add_agreement_command(subparsers)


def later(name: str, **keywords: Any) -> Callable[[argparse.Namespace], int]:
    """The handler `run_commands.<name>(args, **keywords)`, imported when the command runs."""

    def handler(args: argparse.Namespace) -> int:
        from . import run_commands

        return getattr(run_commands, name)(args, **keywords)

    return handler


__all__ = ["add_commands", "options_from"]
