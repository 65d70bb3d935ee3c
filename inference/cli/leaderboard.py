"""`longform-eval leaderboard RUN_OR_FOLDER... --out DIR`: one table per comparable group of runs, as files."""

from __future__ import annotations

import argparse

from longform_eval.common.arg_types import out_folder

from ..api.leaderboard import leaderboard
from ..hub.sources import hub_or_local_path


def add_command(subparsers: argparse._SubParsersAction) -> None:
    command = subparsers.add_parser(
        "leaderboard",
        help="rank scored runs (one table per comparable group) into md, csv, json, tex and a forest plot",
    )
    command.add_argument(
        "runs",
        type=hub_or_local_path,
        nargs="+",
        metavar="RUN_OR_FOLDER",
        help="run folders, folders holding run folders, or hf://datasets/ORG/NAME[/PATH] (copied as `report` does)",
    )
    command.add_argument(
        "--out",
        type=out_folder,
        required=True,
        help="folder for leaderboard.md/.csv/.json/.tex/.png/.pdf: new, empty, or written by an earlier leaderboard",
    )
    command.set_defaults(handler=command_leaderboard)


def command_leaderboard(args: argparse.Namespace) -> int:
    board = leaderboard(args.runs, out=args.out)
    print(repr(board))
    for table in board.tables[1:]:
        print(f"{table.id}: {table.reason}")
    print(f"written: {args.out}/leaderboard.{{md,csv,json,tex,png,pdf}}")
    return 0


__all__ = ["add_command"]
