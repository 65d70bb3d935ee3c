"""`longform-eval leaderboard RUN_OR_FOLDER... --out DIR`: one table per comparable group of runs, as files."""

from __future__ import annotations

import argparse

from longform_eval.common.arg_types import out_folder

from ..hub.paths import hub_or_local_path
from ..report.tex_columns import COMPACT_TEX_COLUMNS, TEX_COLUMNS, parse_tex_columns


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
    command.add_argument(
        "--tex-columns",
        type=tex_columns,
        default=COMPACT_TEX_COLUMNS,
        metavar="COLUMNS",
        help=f"the columns of leaderboard.tex, comma-separated, in the order wanted, from {','.join(TEX_COLUMNS)} "
        f"(default: {','.join(COMPACT_TEX_COLUMNS)}, which fits one column of a two-column paper)",
    )
    command.set_defaults(handler=command_leaderboard)


def tex_columns(text: str) -> tuple[str, ...]:
    """`--tex-columns`: known column names, or an argparse error naming the unknown ones and the allowed."""
    try:
        return parse_tex_columns(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def command_leaderboard(args: argparse.Namespace) -> int:
    from ..api.ranking import leaderboard  # imported when the command runs: --help stays fast
    from ..report.leaderboard_files import check_out_folder, write_leaderboard

    out = check_out_folder(args.out)  # before a run is read, as `le.leaderboard(..., out=)` does
    board = leaderboard(args.runs)
    write_leaderboard(board, out, args.tex_columns)
    print(repr(board))
    for table in board.tables[1:]:
        print(f"{table.id}: {table.reason}")
    print(f"written: {args.out}/leaderboard.{{md,csv,json,tex,png,pdf}}")
    return 0


__all__ = ["add_command"]
