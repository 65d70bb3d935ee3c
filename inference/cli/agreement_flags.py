"""The options of `longform-eval judge-agreement` (the command is `agreement.py`, imported when it runs)."""

from __future__ import annotations

import argparse
from pathlib import Path

from longform_eval.common.arg_types import out_folder, source_folder
from longform_eval.metric.pairwise.judge import load_pairwise_prompt

from ..limits import JUDGE_ATTEMPTS, NEW_TOKENS, ROWS
from .args import add_backend_arguments

DEFAULT_OUT = Path("runs/judge-agreement")


def add_agreement_command(subparsers: argparse._SubParsersAction) -> None:
    command = subparsers.add_parser(
        "judge-agreement",
        help="run a judge on PandaLM's human-labelled A/B items: agreement with the human majority, Cohen's kappa, "
        "flip rate, confusion matrix (calibrate a judge before trusting it)",
    )
    add_backend_arguments(command, "judge", "to calibrate (required), e.g. local:default or openai:gpt-4o")
    prompt = load_pairwise_prompt().judge
    command.add_argument(
        "--mode", choices=["pairwise", "single"], default="pairwise", help="judge mode (default: %(default)s)"
    )
    command.add_argument("--limit", type=ROWS.argument(), metavar="N", help="the first N items (default: all 999)")
    command.add_argument(
        "--judge-max-new-tokens",
        type=NEW_TOKENS.argument(),
        metavar="N",
        help=f"the judge's max new tokens per reply (default: {prompt.max_tokens}, the pairwise judge prompt's)",
    )
    command.add_argument(
        "--judge-attempts",
        type=JUDGE_ATTEMPTS.argument(),
        metavar="N",
        help=f"attempts per call until it parses (default: {prompt.attempts}, the pairwise judge prompt's)",
    )
    command.add_argument(
        "--constrained-judge",
        choices=["on", "off"],
        help="JSON-schema judging (default: on for local:, off otherwise)",
    )
    command.add_argument(
        "--source",
        type=source_folder,
        help="folder of the PandaLM test set (default: the local copy, else upstream)",
    )
    command.add_argument(
        "--out", type=out_folder, help=f"folder for the records and results (default {DEFAULT_OUT}/<judge>)"
    )
    command.set_defaults(handler=run_agreement)


def run_agreement(args: argparse.Namespace) -> int:
    from .agreement import command_agreement  # imported when the command runs: --help stays fast

    return command_agreement(args, DEFAULT_OUT)


__all__ = ["DEFAULT_OUT", "add_agreement_command"]
