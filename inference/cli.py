"""The `longform-eval` command line."""

from __future__ import annotations

import argparse
import sys
from importlib.metadata import entry_points

from longform_eval.dataset_builder import SourceError, SourceUnavailableError
from longform_eval.dataset_builder import cli as dataset_cli
from longform_eval.dataset_builder.hub import HubUnavailableError
from longform_eval.metric import cli as metric_cli

from . import cli_run
from .backends import MissingExtraError
from .runner import RunConfigMismatch
from .runner.lock import RunFolderLocked

COMMANDS_GROUP = "longform_eval.commands"
EXPECTED_ERRORS = (
    SourceError,
    SourceUnavailableError,
    HubUnavailableError,
    FileNotFoundError,
    ImportError,
    ValueError,
    MissingExtraError,
    RunConfigMismatch,
    RunFolderLocked,
    ConnectionError,
)


def parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(prog="longform-eval", description=__doc__)
    subparsers = root.add_subparsers(dest="command", required=True)
    dataset_cli.add_commands(subparsers)
    metric_cli.add_commands(subparsers)
    cli_run.add_commands(subparsers)
    add_plugin_commands(subparsers)
    return root


def add_plugin_commands(subparsers: argparse._SubParsersAction) -> None:
    """Commands of packages above this one (the Space) register through the `longform_eval.commands` entry points."""
    for entry in entry_points(group=COMMANDS_GROUP):
        entry.load()(subparsers)


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return args.handler(args)
    except EXPECTED_ERRORS as error:
        print(f"longform-eval {args.command}: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
