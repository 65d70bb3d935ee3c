"""The `longform-eval` command line.

An error the user caused (a bad option, file or record, a full disk) is one line on stderr and exit status 2;
`longform-eval --debug COMMAND ...` also prints its traceback. Any other exception is a bug and keeps its traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import textwrap
import traceback
import warnings
from collections.abc import Iterator
from typing import Any, NoReturn

from pydantic import ValidationError

from longform_eval.common.errors import ConfigError, LongformEvalError, StaleResultWarning
from longform_eval.common.install import prefixed
from longform_eval.common.user_errors import os_error_line, validation_problem
from longform_eval.dataset_builder import SourceError, SourceUnavailableError
from longform_eval.dataset_builder import cli as dataset_cli
from longform_eval.dataset_builder.folder import package_version
from longform_eval.dataset_builder.hub import HubUnavailableError
from longform_eval.registry.discovery import loaded_entries, warn_broken

from ..backends import MissingExtraError
from ..environment_secrets import register_environment_secrets
from ..hub.client import guard_hub_client
from ..runner import RunConfigMismatch
from ..runner.lock import RunFolderLocked, UnsafeLockFile, unlock_all_run_folders
from ..scrubbed_output import scrubbed_output, unscrubbed
from ..secret_values import scrub, scrubbed_line
from . import fit_weights, leaderboard, publish, push_run
from . import run as cli_run
from .args import flag_line
from .help_text import states_default

COMMANDS_GROUP = "longform_eval.commands"
EXPECTED_ERRORS = (
    LongformEvalError,  # every error of the toolkit's own: the ones below that are not are the libraries'
    SourceError,
    SourceUnavailableError,
    HubUnavailableError,
    OSError,  # FileNotFoundError, ConnectionError, a full disk, ...
    ImportError,
    ValueError,  # pydantic's ValidationError too
    MissingExtraError,
    RunConfigMismatch,
    RunFolderLocked,
    UnsafeLockFile,
)


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


def error_line(error: BaseException) -> str:
    if isinstance(error, ConfigError):
        return flag_line(error)  # the API names the setting; the command line names its flag
    if isinstance(error, RunConfigMismatch):
        return error.command_line()  # --force, where a Python caller is told force=True
    if isinstance(error, ValidationError):
        return f"{error.title}: {validation_problem(error)}"
    if isinstance(error, OSError):
        return os_error_line(error)
    return " ".join(str(error).split("\n"))


def error_text(command: str, error: BaseException) -> str:
    """The error as printed: one line, but for a missing package, whose install commands follow on lines of their own
    (`common.install`: no line over 100 characters)."""
    head = f"longform-eval {command}: error: "
    hint = prefixed(scrub(str(error)), head) if isinstance(error, ImportError) else None
    return hint if hint is not None else head + scrubbed_line(error_line(error))


@contextlib.contextmanager
def one_line_warnings() -> Iterator[None]:
    """Every warning is one line on stderr, never with the Python source line it came from: a StaleResultWarning (a
    stale scores.json, and what was done instead) as its message; any other as Python shows it, less that line."""
    shown = warnings.showwarning

    def show(message: Warning | str, category: type[Warning], filename: str, lineno: int, *args: Any, **kwargs: Any):
        if issubclass(category, StaleResultWarning):
            print(f"longform-eval: {message}", file=sys.stderr)
        else:
            shown(" ".join(str(message).split()), category, filename, lineno, kwargs.get("file"), "")  # no source

    with warnings.catch_warnings():
        warnings.simplefilter("always", StaleResultWarning)
        warnings.showwarning = show
        yield


def main(argv: list[str] | None = None) -> int:
    with scrubbed_output():  # every line printed or logged, scrubbed of the secrets in use
        return run_command(argv)


def run_command(argv: list[str] | None) -> int:
    guard_hub_client()  # every Hub request of every command: a timeout, its answers checked (hub/client.py)
    register_environment_secrets()  # the keys and tokens this environment holds: scrubbed from the first byte
    try:
        args = parser().parse_args(argv)
    except CommandLineError as error:
        print(scrub(str(error)), file=sys.stderr)
        return 2
    try:
        with one_line_warnings():
            return args.handler(args)
    except EXPECTED_ERRORS as error:
        if args.debug:
            traceback.print_exc(file=unscrubbed(sys.stderr))
        print(error_text(args.command, error), file=sys.stderr)
        return 2
    finally:
        unlock_all_run_folders()  # the folders this command wrote are free again, and no `.lock` file stays


if __name__ == "__main__":
    sys.exit(main())
