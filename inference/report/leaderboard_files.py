"""The leaderboard's files: leaderboard.md, .csv, .json, .tex (booktabs tabulars a paper can \\input), and a forest
plot, leaderboard.png and .pdf, sized for a paper's column (3.5 in wide, type 7 pt and up).

They are written into a folder this command owns (`longform_eval.common.owned`): a new or empty one, or one whose
marker lists every file in it, all written by an earlier `leaderboard`; a folder holding anything else is refused,
and nothing is written. Each file is written whole (a temporary file, then `os.replace`).
"""

from __future__ import annotations

import json
from pathlib import Path

from longform_eval.common.atomic import replacing, write_text_atomic
from longform_eval.common.errors import OutputFileError
from longform_eval.common.owned import listed_files, shown, unlisted_entries, write_listing

from .leaderboard import Leaderboard, LeaderboardRow, LeaderboardTable, fmt_figure
from .sections.plots import pyplot

MARKER = ".longform-eval-leaderboard.json"
NAME = "leaderboard"
FILES = tuple(f"{NAME}.{suffix}" for suffix in ("md", "csv", "json", "tex", "png", "pdf"))
WIDTH_IN = 3.5  # one column of a two-column paper
FONT_PT = 7
TIE_COLOURS = ("#1f4e79", "#c55a11")  # alternate between tie groups (runs whose rank ranges overlap)


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


def write_leaderboard(board: Leaderboard, out: Path) -> list[Path]:
    """Every file, each whole, into `out` (checked first); returns their paths."""
    check_out_folder(out)
    out.mkdir(parents=True, exist_ok=True)
    write_listing(out, MARKER, {"written_by": "longform-eval leaderboard"}, FILES)  # ours before the first file
    write_text_atomic(out / f"{NAME}.md", "\n".join(markdown_lines(board)) + "\n")
    write_text_atomic(out / f"{NAME}.csv", board.to_pandas().to_csv(index=False))
    write_text_atomic(out / f"{NAME}.json", json.dumps(board.to_dict(), indent=2, ensure_ascii=False) + "\n")
    write_text_atomic(out / f"{NAME}.tex", latex(board))
    forest_plot(board, out / f"{NAME}.png", out / f"{NAME}.pdf")
    return [out / name for name in FILES]


# ----- markdown ---------------------------------------------------------------------------------------------------
def rank_range(row: LeaderboardRow) -> str:
    if row.rank is None:
        return "-"
    return str(row.rank_low) if row.rank_low == row.rank_high else f"{row.rank_low}-{row.rank_high}"


def deviation_notes(table: LeaderboardTable) -> tuple[dict[str, str], list[str]]:
    """A mark per run that deviates from the paper's protocol (`*`, or `*1`, `*2`... when they differ), and the
    notes the marks point to."""
    distinct = list(dict.fromkeys(row.deviations for row in table.rows if row.deviations))
    if not distinct:
        return {}, []
    marks = ["*"] if len(distinct) == 1 else [f"*{i}" for i in range(1, len(distinct) + 1)]
    by_run = {row.run: marks[distinct.index(row.deviations)] for row in table.rows if row.deviations}
    notes = [
        f"{mark} deviates from the paper's protocol: {'; '.join(d)}" for mark, d in zip(marks, distinct, strict=True)
    ]
    return by_run, notes


def markdown_lines(board: Leaderboard) -> list[str]:
    lines = [
        "# Leaderboard",
        "",
        "One table per group of runs that can be compared. Each figure with the run's own 95% interval; rank and "
        "rank range from the paired comparisons on the units all runs of the table scored (rank range: from 1 + the "
        "runs distinguishably above to the runs less those distinguishably below; overlapping ranges are ties).",
    ]
    for table in board.tables:
        marks, notes = deviation_notes(table)
        tasks = table.task_names
        header = ("rank", "rank range", "model", "judge", f"{table.figure} [95% CI]", "n", *tasks)
        lines += ["", f"## {table.id}: {table.benchmark}, judge {table.judge}", "", f"Why a table: {table.reason}.", ""]
        lines += ["| " + " | ".join(header) + " |", "|---:|---:|---|---|" + "---:|" * (len(header) - 4)]
        for row in table.rows:
            cells = [
                "-" if row.rank is None else str(row.rank),
                rank_range(row),
                md_cell(row.model) + marks.get(row.run, "") + ("" if row.complete else " (incomplete: calls pending)"),
                md_cell(row.judge or "-"),
                fmt_figure(row.score, row.low, row.high),
                "-" if row.n is None else str(row.n),
                *(fmt_figure(*task_figure(row, name)) for name in tasks),
            ]
            lines.append("| " + " | ".join(cells) + " |")
        shared = f"over the {table.n_shared} {table.unit}s all runs scored" if table.n_shared is not None else ""
        lines += ["", f"Ranks {shared or '(none: no per-unit records)'}.", *([""] + notes if notes else [])]
    lines += ["", f"Method: {board.method}"]
    return lines


def task_figure(row: LeaderboardRow, name: str) -> tuple[float | None, float | None, float | None]:
    found = row.tasks.get(name)
    return (None, None, None) if found is None else (found.score, found.low, found.high)


def md_cell(text: str) -> str:
    return text.replace("|", "\\|")


# ----- LaTeX ------------------------------------------------------------------------------------------------------
LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def tex(text: object) -> str:
    return "".join(LATEX_SPECIAL.get(char, char) for char in str(text))


def tex_figure(score: float | None, low: float | None, high: float | None) -> str:
    text = fmt_figure(score, low, high)
    return "--" if text == "-" else text


def latex(board: Leaderboard) -> str:
    """One booktabs tabular per table (needs `\\usepackage{booktabs}`), each after a comment naming its group."""
    blocks = [
        "% longform-eval leaderboard: \\input{leaderboard.tex} inside a table environment; needs \\usepackage{booktabs}"
    ]
    for table in board.tables:
        marks, notes = deviation_notes(table)
        tasks = table.task_names
        columns = 4 + len(tasks)
        header = ["Model", f"{tex(table.figure)} [95\\% CI]", "Rank", "$n$", *map(tex, tasks)]
        lines = [
            f"% {table.id}: {tex(table.benchmark)}, judge {tex(table.judge)}. {tex(table.reason)}.",
            f"\\begin{{tabular}}{{l{'r' * (columns - 1)}}}",
            "\\toprule",
            " & ".join(header) + r" \\",
            "\\midrule",
        ]
        for row in table.rows:
            mark = marks.get(row.run, "")
            model = tex(row.model) + (f"$^{{{mark}}}$" if mark else "")
            figures = [tex_figure(*task_figure(row, name)) for name in tasks]
            rank = "--" if row.rank is None else f"{row.rank} ({rank_range(row).replace('-', '--')})"
            cells = [model, tex_figure(row.score, row.low, row.high), rank, "--" if row.n is None else str(row.n)]
            lines.append(" & ".join([*cells, *figures]) + r" \\")
        lines.append("\\bottomrule")
        for mark in dict.fromkeys(marks.values()):
            short_note = f"$^{{{mark}}}$ deviates from the paper's protocol (below; leaderboard.md)"
            lines.append(f"\\multicolumn{{{columns}}}{{l}}{{\\footnotesize {short_note}}} \\\\")
        lines.append("\\end{tabular}")
        lines += [f"% {' '.join(note.split())}" for note in notes]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"


# ----- the forest plot --------------------------------------------------------------------------------------------
def tie_groups(rows: list[LeaderboardRow]) -> list[int]:
    """A group number per row (rows in rank order): consecutive rows whose rank ranges overlap share one."""
    groups, current, reach = [], 0, None
    for row in rows:
        low, high = row.rank_low, row.rank_high
        if reach is not None and (low is None or low > reach):
            current += 1
            reach = None
        reach = high if reach is None or high is None else max(reach, high)
        groups.append(current)
    return groups


def forest_plot(board: Leaderboard, png: Path, pdf: Path) -> None:
    """Each run's figure and 95% interval, one panel per table, best at the top; runs whose rank ranges overlap (ties)
    share a colour and a bracket of rank ranges on the right."""
    plt = pyplot()
    heights = [max(len(table.rows), 1) * 0.2 + 1.0 for table in board.tables] or [0.8]  # rows + title, axis
    with plt.rc_context({"font.size": FONT_PT, "axes.titlesize": FONT_PT + 1, "axes.labelsize": FONT_PT}):
        figure, axes = plt.subplots(
            len(heights), 1, figsize=(WIDTH_IN, sum(heights)), gridspec_kw={"height_ratios": heights}, squeeze=False
        )
        for axis, table in zip(axes[:, 0], board.tables, strict=False):
            panel(axis, table)
        if not board.tables:
            axes[0, 0].text(0.5, 0.5, "no runs", ha="center", va="center")
            axes[0, 0].set_axis_off()
        figure.tight_layout(pad=0.3)
        for path, kind in ((png, "png"), (pdf, "pdf")):
            with replacing(path) as temporary:
                figure.savefig(temporary, dpi=300, format=kind)
    plt.close(figure)


def panel(axis, table: LeaderboardTable) -> None:
    rows = sorted(table.rows, key=lambda r: (r.rank is None, r.rank or 0, r.score is None, -(r.score or 0.0)))
    groups = tie_groups(rows) if all(row.rank is not None for row in rows) else list(range(len(rows)))
    positions = list(range(len(rows)))[::-1]  # the highest figure on top
    for group in set(groups):
        members = [y for y, found in zip(positions, groups, strict=True) if found == group]
        if len(members) > 1:  # a tie: the rank ranges of these runs overlap
            axis.axhspan(min(members) - 0.4, max(members) + 0.4, color="#d9d9d9", alpha=0.6, linewidth=0, zorder=0)
    for y, row, group in zip(positions, rows, groups, strict=True):
        colour = TIE_COLOURS[group % len(TIE_COLOURS)]
        if row.score is None:
            continue
        if row.low is not None and row.high is not None:
            axis.plot([row.low, row.high], [y, y], color=colour, linewidth=1.2, solid_capstyle="butt")
        axis.plot([row.score], [y], marker="o", markersize=3.5, color=colour)
    axis.set_yticks(positions)
    axis.set_yticklabels([short(row.model) for row in rows])
    right = axis.twinx()
    right.set_ylim(axis.get_ylim())
    right.set_yticks(positions)
    right.set_yticklabels([f"#{rank_range(row)}" for row in rows])
    right.tick_params(axis="y", length=0)
    axis.set_ylim(-0.6, len(rows) - 0.4)
    right.set_ylim(-0.6, len(rows) - 0.4)
    axis.set_xlabel(f"{table.figure}, 95% CI (shaded: tied; right: rank range)")
    axis.set_title(f"{table.id}: {short(table.benchmark, 34)}\njudge {short(table.judge or '-', 34)}", loc="left")
    axis.grid(axis="x", linewidth=0.3, alpha=0.6)
    for side in ("top",):
        axis.spines[side].set_visible(False)
        right.spines[side].set_visible(False)


def short(text: str, limit: int = 22) -> str:
    return text if len(text) <= limit else "..." + text[-(limit - 3) :]


__all__ = ["FILES", "MARKER", "check_out_folder", "write_leaderboard"]
