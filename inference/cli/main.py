"""The `longform-eval` command line.

An error the user caused (a bad option, file or record, a full disk) is one line on stderr and exit status 2;
`longform-eval --debug COMMAND ...` also prints its traceback. Any other exception is a bug and keeps its traceback.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from typing import Any, NoReturn

from longform_eval.common.errors import LongformEvalError
from longform_eval.dataset_builder import cli as dataset_cli
from longform_eval.dataset_builder.folder import package_version
from longform_eval.registry.discovery import loaded_entries, warn_broken

from ..environment_secrets import register_environment_secrets, register_hub_token
from ..scrubbed_output import scrubbed_output
from ..secret_values import scrub
from . import fit_weights, leaderboard, publish, push_run
from . import run as cli_run
from .help_text import states_default

COMMANDS_GROUP = "longform_eval.commands"


class CommandLineError(LongformEvalError, ValueError):
    """A command line argparse refuses (an unknown option, a value of the wrong type or range)."""


class DefaultShown(argparse.HelpFormatter):
    """An option's help ends with its default when the help does not say it (`states_default`; a flag's default is
    its absence); help and descriptions wrap between words, never at a hyphen inside one (`--dry-` / `run`)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if action.nargs == 0 or action.default in (None, argparse.SUPPRESS) or states_default(text):
            return text
        return f"{text} (default: %(default)s)"

    def _split_lines(self, text: str, width: int) -> list[str]:
        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        words = " ".join(text.split())
        return textwrap.fill(words, width, initial_indent=indent, subsequent_indent=indent, break_on_hyphens=False)


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a refused command line is one line (no usage block) and reaches `main` as an exception; every
    command's help shows its options' defaults (`DefaultShown`)."""

    def __init__(self, *args: Any, formatter_class: type[argparse.HelpFormatter] = DefaultShown, **kwargs: Any):
        super().__init__(*args, formatter_class=formatter_class, **kwargs)

    def error(self, message: str) -> NoReturn:
        raise CommandLineError(f"{self.prog}: error: {message}")


def parser() -> argparse.ArgumentParser:
    root = OneLineParser(prog="longform-eval", description=__doc__.splitlines()[0])
    root.add_argument(
        "--debug",
        action="store_true",
        help="also print the traceback of an error; unlike the error line, it is printed unmasked (secrets in it are "
        "shown)",
    )
    root.add_argument("--version", action="version", version=f"%(prog)s {package_version()}")
    subparsers = root.add_subparsers(dest="command", required=True, metavar="COMMAND")  # OneLineParsers too
    dataset_cli.add_commands(subparsers)
    fit_weights.add_commands(subparsers)
    cli_run.add_commands(subparsers)
    leaderboard.add_command(subparsers)
    publish.add_command(subparsers)
    push_run.add_command(subparsers)
    add_plugin_commands(subparsers)
    return root


def add_plugin_commands(subparsers: argparse._SubParsersAction) -> None:
    """Commands of packages above this one (the Space) register through the `longform_eval.commands` entry points.
    A plug-in that fails to load or to add its commands is a warning and adds none (as a broken plug-in benchmark or
    backend is): every other command still works."""
    for entry, add_commands in loaded_entries(COMMANDS_GROUP):
        before = dict(subparsers.choices)
        try:
            add_commands(subparsers)
        except Exception as error:  # another package's broken plug-in must not break every command
            drop_commands_added(subparsers, before)
            warn_broken(COMMANDS_GROUP, entry, f"failed to add its commands: {error}")


def drop_commands_added(subparsers: argparse._SubParsersAction, before: dict[str, argparse.ArgumentParser]) -> None:
    """Remove the commands a plug-in added before it failed: half-made, they would have no handler."""
    added = set(subparsers.choices) - set(before)
    for name in added:
        del subparsers.choices[name]
    subparsers._choices_actions = [action for action in subparsers._choices_actions if action.dest not in added]


def main(argv: list[str] | None = None) -> int:
    with scrubbed_output():  # every line printed or logged, scrubbed of the secrets in use
        return run_command(argv)


def run_command(argv: list[str] | None) -> int:
    register_environment_secrets(hub_token=False)  # the keys this environment holds: scrubbed from the first byte
    try:
        args = parser().parse_args(argv)
    except CommandLineError as error:
        register_hub_token()  # the line may quote what was typed
        print(scrub(str(error)), file=sys.stderr)
        return 2
    from .handled import run_handler  # imported when a command runs: --help and --version stay fast

    return run_handler(args)  # the Hub client guarded before the command's first Hub request (hub/client.py)


if __name__ == "__main__":
    sys.exit(main())
