"""`longform-eval publish` and `longform-eval push-run`."""

from __future__ import annotations

import argparse

from . import publish_cli, push_run_cli


def add_commands(subparsers: argparse._SubParsersAction) -> None:
    publish_cli.add_command(subparsers)
    push_run_cli.add_command(subparsers)
