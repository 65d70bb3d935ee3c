"""The leaderboard's files: leaderboard.md, .csv, .json, .tex (booktabs tabulars a paper can \\input), and a forest
plot, leaderboard.png and .pdf, sized for a paper's column (3.5 in wide, type 7 pt and up).

They are written into a folder this command owns (`longform_eval.common.owned`): a new or empty one, or one whose
marker lists every file in it, all written by an earlier `leaderboard`; a folder holding anything else is refused,
and nothing is written. Each file is written whole (a temporary file, then `os.replace`).
"""

from __future__ import annotations

import json
from pathlib import Path

from longform_eval.common.atomic import write_text_atomic
from longform_eval.common.errors import OutputFileError
from longform_eval.common.owned import listed_files, shown, unlisted_entries, write_listing
from longform_eval.common.shown import csv_cell, markdown_cell

from .leaderboard import Leaderboard, LeaderboardRow, fmt_figure
from .leaderboard_labels import deviation_notes, ranks_sentence, task_figure
from .leaderboard_plot import forest_plot
from .leaderboard_tex import COMPACT_TEX_COLUMNS, TEX_COLUMNS, latex, parse_tex_columns

MARKER = ".longform-eval-leaderboard.json"
NAME = "leaderboard"
FILES = tuple(f"{NAME}.{suffix}" for suffix in ("md", "csv", "json", "tex", "png", "pdf"))


# ----- the folder -------------------------------------------------------------------------------------------------
def check_out_folder(out: Path) -> Path:
    """`out` if the leaderboard may be written there (see the module doc); else an OutputFileError, nothing written."""
    if out.exists() and not out.is_dir():
        raise OutputFileError(f"--out {out}: refusing to write the leaderboard there: it is not a folder")
    if out.is_dir() and listed_files(out, MARKER) is None:
        others = unlisted_entries(out, [*FILES, MARKER])
        raise OutputFileError(
            f"--out {out}: refusing to write the leaderboard there: it holds files `longform-eval leaderboard` did "
            f"not write ({shown(others) or 'and no marker ' + MARKER}). Choose a new or empty folder"
        )
    return out


def write_leaderboard(board: Leaderboard, out: Path, tex_columns: tuple[str, ...] = COMPACT_TEX_COLUMNS) -> list[Path]:
    """Every file, each whole, into `out` (checked first), leaderboard.tex with `tex_columns` (TEX_COLUMNS); returns
    their paths."""
    check_out_folder(out)
    out.mkdir(parents=True, exist_ok=True)
    write_listing(out, MARKER, {"written_by": "longform-eval leaderboard"}, FILES)  # ours before the first file
    write_text_atomic(out / f"{NAME}.md", "\n".join(markdown_lines(board)) + "\n")
    write_text_atomic(out / f"{NAME}.csv", board.to_pandas().map(csv_cell).to_csv(index=False))  # no cell a formula
    write_text_atomic(out / f"{NAME}.json", json.dumps(board.to_dict(), indent=2, ensure_ascii=False) + "\n")
    write_text_atomic(out / f"{NAME}.tex", latex(board, tex_columns))
    forest_plot(board, out / f"{NAME}.png", out / f"{NAME}.pdf")
    return [out / name for name in FILES]


# ----- markdown ---------------------------------------------------------------------------------------------------
def rank_range(row: LeaderboardRow) -> str:
    if row.rank is None:
        return "-"
    return str(row.rank_low) if row.rank_low == row.rank_high else f"{row.rank_low}-{row.rank_high}"


def markdown_lines(board: Leaderboard) -> list[str]:
    lines = [
        "# Leaderboard",
        "",
        "One table per group of runs that can be compared. Each figure with the run's own 95% interval; rank and "
        "rank range from the paired comparisons on the units all runs of the table scored (rank range: from 1 + the "
        "runs distinguishably above to the runs less those distinguishably below; a run cannot be separated from the "
        "runs whose rank lies in its range: its own set, not a group, so A may be tied with B and B with C while A "
        "is above C).",
    ]
    for table in board.tables:
        marks, notes = deviation_notes(table)
        tasks = table.task_names
        header = ("rank", "rank range", f"{table.figure}, shared", "model", "judge", f"{table.figure} [95% CI]", "n")
        header += tuple(tasks)
        heading = f"## {table.id}: {md_cell(table.benchmark)}, judge {md_cell(table.judge)}"
        lines += ["", heading, "", f"Why a table: {md_cell(table.reason)}.", ""]
        lines += ["| " + " | ".join(header) + " |", "|---:|---:|---:|---|---|" + "---:|" * (len(header) - 5)]
        for row in table.rows:
            cells = [
                "-" if row.rank is None else str(row.rank),
                rank_range(row),
                fmt_figure(row.shared_score, None, None),
                md_cell(row.model) + marks.get(row.run, "") + ("" if row.complete else " (incomplete: calls pending)"),
                md_cell(row.judge or "-"),
                fmt_figure(row.score, row.low, row.high),
                "-" if row.n is None else str(row.n),
                *(fmt_figure(*task_figure(row, name)) for name in tasks),
            ]
            lines.append("| " + " | ".join(cells) + " |")
        lines += ["", ranks_sentence(table), *([""] + [md_cell(note) for note in notes] if notes else [])]
    lines += ["", f"Method: {board.method}"]
    return lines


def md_cell(text: str) -> str:
    return markdown_cell(text)


__all__ = ["COMPACT_TEX_COLUMNS", "TEX_COLUMNS", "check_out_folder", "parse_tex_columns", "write_leaderboard"]
