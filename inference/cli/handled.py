"""How a parsed command runs: the Hub client guarded and the Hub token registered first, every warning one line, an
error the user caused one line on stderr and exit status 2 (with `--debug`, its traceback too), and the run folders
the command locked unlocked after. Imported once a command is parsed: `--help` and `--version` never load it."""

from __future__ import annotations

import argparse
import contextlib
import sys
import traceback
import warnings
from collections.abc import Iterator
from typing import Any

from pydantic import ValidationError

from longform_eval.common.errors import (
    ConfigError,
    LongformEvalError,
    SourceError,
    SourceUnavailableError,
    StaleResultWarning,
)
from longform_eval.common.install import prefixed
from longform_eval.common.user_errors import os_error_line, validation_problem
from longform_eval.dataset_builder.hub import HubUnavailableError

from ..backends import MissingExtraError
from ..environment_secrets import register_hub_token
from ..hub.client import guard_hub_client
from ..runner import RunConfigMismatch
from ..runner.lock import RunFolderLocked, UnsafeLockFile, unlock_all_run_folders
from ..scrubbed_output import unscrubbed
from ..secret_values import scrub, scrubbed_line
from .args import flag_line

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


def run_handler(args: argparse.Namespace) -> int:
    """Run the command `args` names (its `handler`); its exit status."""
    guard_hub_client()  # every Hub request of every command: a timeout, its answers checked (hub/client.py)
    register_hub_token()  # the environment's keys are registered already (main); the token file's too, now
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


__all__ = ["EXPECTED_ERRORS", "error_line", "error_text", "one_line_warnings", "run_handler"]
