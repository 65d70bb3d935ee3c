"""`longform-eval publish` and `longform-eval push-run`."""

from __future__ import annotations

import argparse
import importlib

COMMAND_MODULES = ("publish_cli", "push_run_cli")


def add_commands(subparsers: argparse._SubParsersAction) -> None:
    for name in COMMAND_MODULES:
        try:  # TEMPORARY while the commands are written; the lead removes this guard
            module = importlib.import_module(f".{name}", __package__)
        except ModuleNotFoundError:
            continue
        module.add_command(subparsers)
