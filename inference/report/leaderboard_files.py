"""The leaderboard's files: leaderboard.md, .csv, .json, .tex (booktabs tabulars a paper can \\input), and a forest
plot, leaderboard.png and .pdf, sized for a paper's column (3.5 in wide, type 7 pt and up).

They are written into a folder this command owns (`longform_eval.common.owned`): a new or empty one, or one whose
marker lists every file in it, all written by an earlier `leaderboard` (and the temporary files of a writer killed
meanwhile, which are removed); a folder holding anything else is refused, and nothing is written. One writer at a
time; the files are staged beside the folder and swapped in whole.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

from longform_eval.common.atomic import write_text_atomic
from longform_eval.common.errors import OutputFileError
from longform_eval.common.owned import listed_files, shown, unlisted_entries, write_listing
from longform_eval.common.shown import csv_cell, markdown_cell
from longform_eval.common.staging import remove_dead_staging, staging_folder, writing_lock
from longform_eval.dataset_builder.folder import replace_folder

from .leaderboard import Leaderboard, LeaderboardRow, fmt_figure
from .leaderboard_labels import deviation_notes, ranks_sentence, task_figure
from .leaderboard_plot import forest_plot
from .leaderboard_tex import latex
from .tex_columns import COMPACT_TEX_COLUMNS, TEX_COLUMNS, parse_tex_columns

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
    """Every file into `out`, leaderboard.tex with `tex_columns` (TEX_COLUMNS); returns their paths. One writer at a
    time (`writing_lock`): the files are written into a staging folder beside `out`, which then takes its place
    whole, so a reader never meets a mix of two writers' files and a killed writer leaves `out` as it was."""
    with writing_lock(out):
        check_out_folder(out)  # again, under the lock: another writer may have made it meanwhile
        remove_dead_staging(out, MARKER)
        staging = staging_folder(out)
        try:
            write_listing(staging, MARKER, {"written_by": "longform-eval leaderboard"}, FILES)  # ours first
            write_files(board, staging, tex_columns)
            staging.chmod(0o755)
            replace_folder(staging, out, MARKER, "--out", ("leaderboard", "written"))
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)  # made by this call a moment ago (mkdtemp, private)
            raise
    return [out / name for name in FILES]


def write_files(board: Leaderboard, folder: Path, tex_columns: tuple[str, ...]) -> None:
    write_text_atomic(folder / f"{NAME}.md", "\n".join(markdown_lines(board)) + "\n")
    write_text_atomic(folder / f"{NAME}.csv", csv_text(board))
    write_text_atomic(folder / f"{NAME}.json", json.dumps(board.to_dict(), indent=2, ensure_ascii=False) + "\n")
    write_text_atomic(folder / f"{NAME}.tex", latex(board, tex_columns))
    forest_plot(board, folder / f"{NAME}.png", folder / f"{NAME}.pdf")


def csv_text(board: Leaderboard) -> str:
    """leaderboard.csv: `board.records()` under a header row, empty where a value is None, no cell a formula."""
    records = board.records()
    columns = board.columns(records)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    for record in records:
        writer.writerow(["" if record.get(name) is None else csv_cell(record[name]) for name in columns])
    return out.getvalue()


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
