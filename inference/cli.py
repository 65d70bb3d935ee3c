"""The `longform-eval` command line."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from longform_eval.dataset_builder import SourceError, SourceUnavailableError
from longform_eval.dataset_builder import cli as dataset_cli
from longform_eval.dataset_builder.hub import HubUnavailableError
from longform_eval.metric import cli as metric_cli

from . import cli_run
from .backends import MissingExtraError
from .runner import RunConfigMismatch
from .runner.lock import RunFolderLocked

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
    add_space_commands(subparsers)
    return root


def add_space_commands(subparsers: argparse._SubParsersAction) -> None:
    """The Space sits above this package; it is imported only when its command runs."""
    space = subparsers.add_parser("space", help="start the Gradio arena / annotation / leaderboard app")
    space.add_argument("--runs", type=Path, help="folder of run folders whose responses and scores to show")
    space.add_argument("--released", type=Path, help="folder of released HelloBench responses (one per model)")
    space.add_argument("--db", type=Path, default=Path("votes.sqlite"), help="SQLite file of votes")
    space.add_argument("--judge", help="BACKEND:MODEL of the LLM judge (optional)")
    space.add_argument("--source", help="HelloBench source folder")
    space.add_argument("--host", help="address to listen on (default: $GRADIO_SERVER_NAME, else 127.0.0.1)")
    space.add_argument("--port", type=int, help="port (default: $GRADIO_SERVER_PORT, else gradio's choice from 7860)")
    space.set_defaults(handler=run_space)
    export = subparsers.add_parser("space-export", help="export votes and annotations (CSV, JSONL)")
    export.add_argument("--db", type=Path, default=Path("votes.sqlite"))
    export.add_argument("--out", type=Path, required=True)
    export.add_argument("--push-to", help="also upload to this Hub dataset repo")
    export.set_defaults(handler=run_space_export)


def run_space(args: argparse.Namespace) -> int:
    from longform_eval.spaces.app import main as space_main

    space_main({k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()})
    return 0


def run_space_export(args: argparse.Namespace) -> int:
    from longform_eval.spaces.storage import VoteStore, push_votes_to_hub

    store = VoteStore(args.db)
    for path in store.export(args.out):
        print(path)
    if args.push_to:
        print(push_votes_to_hub(store, args.push_to))
    return 0


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return args.handler(args)
    except EXPECTED_ERRORS as error:
        print(f"longform-eval {args.command}: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
