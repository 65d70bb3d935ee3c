"""leaderboard.tex: one booktabs tabular per table, compact by default (rank, model, score [95% CI] fit one column
of a two-column paper at \\small), other columns by `--tex-columns`; every cell TeX-escaped, control characters
shown as escapes first."""

from __future__ import annotations

from longform_eval.common.shown import harmless_line

from .leaderboard import Leaderboard, LeaderboardRow, LeaderboardTable, fmt_figure
from .leaderboard_labels import deviation_notes, model_labels, ranks_sentence, task_figure, wrap
from .tex_columns import COMPACT_TEX_COLUMNS, TEX_COLUMNS, checked_tex_columns, parse_tex_columns

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
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
}
TEX_MODEL_CHARS = 20  # a longer model label is wrapped onto lines of at most this many characters
TEX_NOTE_CHARS = 52  # the lines of a note under a table (\footnotesize)


def tex(text: object) -> str:
    """`text` as TeX typesets it: control characters shown as escapes, then every special character escaped."""
    return "".join(LATEX_SPECIAL.get(char, char) for char in harmless_line(str(text)))


def tex_figure(score: float | None, low: float | None, high: float | None) -> str:
    text = fmt_figure(score, low, high)
    return "--" if text == "-" else text


def tex_lines(lines: list[str], align: str = "l") -> str:
    """One line as it is, several stacked in a nested tabular (plain LaTeX, no package), aligned `align`."""
    if len(lines) == 1:
        return lines[0]
    return f"\\begin{{tabular}}[t]{{@{{}}{align}@{{}}}}" + "\\\\\\relax ".join(lines) + "\\end{tabular}"


def tex_rank(row: LeaderboardRow) -> str:
    """`2 (1--3)`: the rank and, where it is not that rank alone, the rank range; `--` without a rank."""
    if row.rank is None:
        return "--"
    return (
        str(row.rank) if row.rank_low == row.rank_high == row.rank else f"{row.rank} ({row.rank_low}--{row.rank_high})"
    )


def tex_header(table: LeaderboardTable, columns: tuple[str, ...]) -> tuple[str, list[str]]:
    """The column spec (no padding at the outer edges) and the header cells of `columns`."""
    figure = tex(table.figure or "score")
    cells = {"rank": ["Rank"], "model": ["Model"], "judge": ["Judge"], "score": [f"{figure} [95\\% CI]"]}
    cells |= {"shared": ["Shared"], "n": ["$n$"], "tasks": [tex(name) for name in table.task_names]}
    aligns = {"rank": "r", "model": "l", "judge": "l", "score": "r", "n": "r", "tasks": "r" * len(table.task_names)}
    aligns["shared"] = "r"
    return "@{}" + "".join(aligns[name] for name in columns) + "@{}", [cell for name in columns for cell in cells[name]]


def tex_row(row: LeaderboardRow, model: list[str], mark: str, columns: tuple[str, ...], tasks: list[str]) -> list[str]:
    """The cells of one run: `model` its label's lines (the deviation mark after the last), `tasks` the table's."""
    lines = [*map(tex, model[:-1]), tex(model[-1]) + (f"$^{{{mark}}}$" if mark else "")]
    cells = {
        "rank": [tex_rank(row)],
        "model": [tex_lines(lines)],
        "judge": [tex(row.judge or "--")],
        "score": [tex_figure(row.score, row.low, row.high)],
        "shared": [tex_figure(row.shared_score, None, None)],
        "n": ["--" if row.n is None else str(row.n)],
        "tasks": [tex_figure(*task_figure(row, name)) for name in tasks],
    }
    return [cell for name in columns for cell in cells[name]]


def tex_notes(marks: dict[str, str], shared: str, width: int) -> list[str]:
    """The notes under a table of `width` columns, each a row across it in \\footnotesize, wrapped to a narrow
    table's width: the parenthetical every model label shares (the labels are shown without it; '' for none), and
    what each deviation mark means."""
    notes = [("", f"every model: ... {shared}")] if shared else []
    notes += [
        (f"$^{{{mark}}}$ ", "deviates from the paper's protocol (leaderboard.md)")
        for mark in dict.fromkeys(marks.values())
    ]
    rows = []
    for lead, note in notes:
        lines = [tex(line) for line in wrap(note, TEX_NOTE_CHARS)]
        text = tex_lines([lead + lines[0], *lines[1:]])
        rows.append(f"\\multicolumn{{{width}}}{{@{{}}l@{{}}}}{{\\footnotesize {text}}} \\\\")
    return rows


def tex_table(table: LeaderboardTable, columns: tuple[str, ...]) -> str:
    """One table as a booktabs tabular in \\small, after a comment naming its group, its notes under it."""
    marks, notes = deviation_notes(table)
    spec, header = tex_header(table, columns)
    models, shared = model_labels(list(table.rows), TEX_MODEL_CHARS)
    lines = [
        f"% {table.id}: {tex(table.benchmark)}, judge {tex(table.judge)}. {tex(table.reason)}.",
        f"% {tex(ranks_sentence(table))}",
        "{\\small",
        f"\\begin{{tabular}}{{{spec}}}",
        "\\toprule",
        " & ".join(header) + r" \\",
        "\\midrule",
    ]
    for row, model in zip(table.rows, models, strict=True):
        cells = tex_row(row, model, marks.get(row.run, ""), columns, table.task_names)
        lines.append(" & ".join(cells) + r" \\")
    shown = shared if "model" in columns else ""
    lines += ["\\bottomrule", *tex_notes(marks, shown, len(header)), "\\end{tabular}\\par}"]
    return "\n".join([*lines, *(f"% {tex(' '.join(note.split()))}" for note in notes)])


def latex(board: Leaderboard, columns: tuple[str, ...] = COMPACT_TEX_COLUMNS) -> str:
    """One booktabs tabular per table (needs `\\usepackage{booktabs}`) with `columns` (TEX_COLUMNS; by default
    rank, model and score, which fit one column of a two-column paper), every cell TeX-escaped."""
    columns = checked_tex_columns(tuple(columns))
    head = [
        "% longform-eval leaderboard: \\input{leaderboard.tex} inside a table environment; needs "
        "\\usepackage{booktabs}",
        f"% columns: {', '.join(columns)} (`longform-eval leaderboard --tex-columns` chooses others)",
    ]
    return "\n".join(head) + "\n\n" + "\n\n".join(tex_table(table, columns) for table in board.tables) + "\n"


__all__ = ["COMPACT_TEX_COLUMNS", "TEX_COLUMNS", "latex", "parse_tex_columns"]
