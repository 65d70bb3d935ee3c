"""The leaderboard's files: leaderboard.md, .csv, .json, .tex (booktabs tabulars a paper can \\input), and a forest
plot, leaderboard.png and .pdf, sized for a paper's column (3.5 in wide, type 7 pt and up).

They are written into a folder this command owns (`longform_eval.common.owned`): a new or empty one, or one whose
marker lists every file in it, all written by an earlier `leaderboard`; a folder holding anything else is refused,
and nothing is written. Each file is written whole (a temporary file, then `os.replace`).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
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
TEX_COLUMNS = ("rank", "model", "judge", "shared", "score", "n", "tasks")  # what `--tex-columns` may name
COMPACT_TEX_COLUMNS = ("rank", "model", "score")  # the default: one column of a two-column paper at \small


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
    write_text_atomic(out / f"{NAME}.csv", board.to_pandas().to_csv(index=False))
    write_text_atomic(out / f"{NAME}.json", json.dumps(board.to_dict(), indent=2, ensure_ascii=False) + "\n")
    write_text_atomic(out / f"{NAME}.tex", latex(board, tex_columns))
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
        "runs distinguishably above to the runs less those distinguishably below; a run cannot be separated from the "
        "runs whose rank lies in its range: its own set, not a group, so A may be tied with B and B with C while A "
        "is above C).",
    ]
    for table in board.tables:
        marks, notes = deviation_notes(table)
        tasks = table.task_names
        header = ("rank", "rank range", f"{table.figure}, shared", "model", "judge", f"{table.figure} [95% CI]", "n")
        header += tuple(tasks)
        lines += ["", f"## {table.id}: {table.benchmark}, judge {table.judge}", "", f"Why a table: {table.reason}.", ""]
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
        lines += ["", ranks_sentence(table), *([""] + notes if notes else [])]
    lines += ["", f"Method: {board.method}"]
    return lines


def ranks_sentence(table: LeaderboardTable) -> str:
    """What the ranks rest on: the units all runs of the table scored (the "shared" column's figure), and the units
    each run's gaps left out; a run's own figure and interval, over all its units, are beside them."""
    if table.n_shared is None:
        return "Ranks: none (no per-unit records)."
    prompts = table.prompts or f"compared on the {table.n_shared} {table.unit}s all runs scored"
    return (
        f"Ranks and the shared figure: {prompts}. The figure with its 95% interval is each run's own, over all the "
        f"{table.unit}s it scored."
    )


def task_figure(row: LeaderboardRow, name: str) -> tuple[float | None, float | None, float | None]:
    found = row.tasks.get(name)
    return (None, None, None) if found is None else (found.score, found.low, found.high)


def md_cell(text: str) -> str:
    return text.replace("|", "\\|")


# ----- labels: whole, wrapped, a shared parenthetical said once ---------------------------------------------------
BREAK_AFTER = "_-/:"  # a label line may end after one of these (or before a space)


def common_parenthetical(labels: list[str]) -> str:
    """The ` (...)` tail every one of two or more labels ends with (`(released answers)`), else ''. Said once in a
    note or title, it leaves the distinct part of each label; a label that is the tail alone keeps it."""
    if len(labels) < 2:
        return ""
    tail = labels[0]
    for label in labels[1:]:
        while not label.endswith(tail):
            tail = tail[1:]
    start = tail.find(" (")
    if start < 0 or any(len(label) == len(tail) - start for label in labels):
        return ""
    return tail[start + 1 :]


def wrap(text: str, limit: int) -> list[str]:
    """`text` in lines of at most `limit` characters where it can be broken (before ` (`, at a space, after one of
    BREAK_AFTER; a run of characters longer than `limit` is split), nothing dropped: the lines joined with the
    spaces they were broken at give `text` back. The start of the text is the first line, so the distinct part of a
    name comes first."""
    lines, rest = [], text
    while len(rest) > limit:
        cut = break_at(rest, limit)
        lines.append(rest[:cut].rstrip(" "))
        rest = rest[cut:].lstrip(" ")
    return [*lines, rest]


def break_at(text: str, limit: int) -> int:
    """Where to end the first line of `text` (longer than `limit`): the last break within `limit` before ` (`, else
    the last space, else the last place after one of BREAK_AFTER, that leaves a third of a line or more (a
    parenthesis may start a line after a shorter one); else at `limit`."""
    head = text[: limit + 1]
    for candidates, shortest in (
        ([i for i in range(1, limit + 1) if head.startswith(" (", i)], 1),
        ([i for i in range(1, limit + 1) if head[i] == " "], limit // 3),
        ([i + 1 for i in range(limit) if head[i] in BREAK_AFTER], limit // 3),
    ):
        fitting = [i for i in candidates if i >= shortest]
        if fitting:
            return fitting[-1]
    return limit


def distinct_models(rows: list[LeaderboardRow]) -> list[str]:
    """Each row's model label, with its run folder's name after it where two rows of a table share a label (its
    whole path where that name is shared too)."""
    labels = [row.model for row in rows]
    for name in (lambda row: Path(row.run).name, lambda row: row.run):
        counts = Counter(labels)
        pairs = zip(labels, rows, strict=True)
        labels = [label if counts[label] == 1 else f"{row.model} [{name(row)}]" for label, row in pairs]
    return labels


def model_labels(rows: list[LeaderboardRow], limit: int) -> tuple[list[list[str]], str]:
    """Each row's model label as lines of at most `limit` characters (whole: wrapped, never cut), without the
    parenthetical every label of the table shares; and that parenthetical ('' if none), to be said once."""
    models = distinct_models(rows)
    shared = common_parenthetical(models)
    stems = [model.removesuffix(" " + shared) if shared else model for model in models]
    return [wrap(stem, limit) for stem in stems], shared


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
TEX_MODEL_CHARS = 20  # a longer model label is wrapped onto lines of at most this many characters
TEX_NOTE_CHARS = 52  # the lines of a note under a table (\footnotesize)


def tex(text: object) -> str:
    return "".join(LATEX_SPECIAL.get(char, char) for char in str(text))


def tex_figure(score: float | None, low: float | None, high: float | None) -> str:
    text = fmt_figure(score, low, high)
    return "--" if text == "-" else text


def parse_tex_columns(text: str) -> tuple[str, ...]:
    """`rank,model,score,n` as the columns of leaderboard.tex, in that order (see `checked_tex_columns`)."""
    return checked_tex_columns(tuple(dict.fromkeys(name.strip() for name in text.split(",") if name.strip())))


def checked_tex_columns(names: tuple[str, ...]) -> tuple[str, ...]:
    """`names` if they are one or more of TEX_COLUMNS; else a ValueError naming the unknown ones and the allowed."""
    unknown = [name for name in names if name not in TEX_COLUMNS]
    if unknown or not names:
        found = f"unknown column {', '.join(map(repr, unknown))}" if unknown else "no column named"
        raise ValueError(f"{found}; allowed: {','.join(TEX_COLUMNS)} (comma-separated, in the order wanted)")
    return names


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
    return "\n".join([*lines, *(f"% {' '.join(note.split())}" for note in notes)])


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


# ----- the forest plot --------------------------------------------------------------------------------------------
COLOUR = "#1f4e79"  # a run's figure, interval and rank
RANGE_COLOUR = "#c55a11"  # a run's rank range and the ranks of the runs it cannot be separated from
PLOT_LABEL_CHARS = 22  # a longer model label is wrapped onto lines of at most this many characters
TITLE_CHARS = 34
ROW_IN, LINE_IN = 0.08, 0.12  # a row's height: ROW_IN + LINE_IN per line of its label


def unseparated(rows: Iterable[LeaderboardRow]) -> dict[str, set[str]]:
    """For each run, the other runs it cannot be separated from: those whose rank lies in its rank range
    [rank_low, rank_high]. Each set is the row's own, never a group: A may not be separable from B, nor B from C,
    while A and C are. A run without a rank has an empty set and is in no other's."""
    rows = list(rows)
    ranked = [row for row in rows if row.rank is not None]
    return {
        row.run: {other.run for other in ranked if other.run != row.run and within(other.rank, row)} for row in rows
    }


def within(rank: int | None, row: LeaderboardRow) -> bool:
    """Whether `rank` lies in the rank range of `row`."""
    if rank is None or row.rank_low is None or row.rank_high is None:
        return False
    return row.rank_low <= rank <= row.rank_high


def plotted_rows(table: LeaderboardTable) -> list[LeaderboardRow]:
    """The table's rows in rank order (then by figure), runs without a rank last."""
    return sorted(table.rows, key=lambda r: (r.rank is None, r.rank or 0, r.score is None, -(r.score or 0.0)))


def forest_figure(board: Leaderboard):
    """The forest plot as a matplotlib figure, WIDTH_IN wide, one panel per table: each run's figure and 95%
    interval on the left, best at the top, its model label whole on the left; on the right its rank (a dot) and
    rank range (a bar), with a tick at the rank of each run it cannot be separated from (`unseparated`)."""
    plt = pyplot()
    tables = [(table, plotted_rows(table)) for table in board.tables]
    heights = [panel_height(table, rows) for table, rows in tables] or [0.8]
    with plt.rc_context({"font.size": FONT_PT, "axes.titlesize": FONT_PT + 1, "axes.labelsize": FONT_PT}):
        figure, axes = plt.subplots(
            len(heights),
            2,
            figsize=(WIDTH_IN, sum(heights)),
            gridspec_kw={"height_ratios": heights, "width_ratios": (2.6, 1.0)},
            squeeze=False,
        )
        for (forest, ranks), (table, rows) in zip(axes, tables, strict=False):
            forest_panel(forest, table, rows)
            rank_panel(ranks, rows)
        if not board.tables:
            axes[0, 0].text(0.5, 0.5, "no runs", ha="center", va="center")
            axes[0, 0].set_axis_off()
            axes[0, 1].set_axis_off()
        figure.tight_layout(pad=0.3, w_pad=0.4)
    return figure


def forest_plot(board: Leaderboard, png: Path, pdf: Path) -> None:
    """`forest_figure`, written whole as a PNG (300 dpi) and a PDF."""
    figure = forest_figure(board)
    for path, kind in ((png, "png"), (pdf, "pdf")):
        with replacing(path) as temporary:
            figure.savefig(temporary, dpi=300, format=kind)
    pyplot().close(figure)


def panel_height(table: LeaderboardTable, rows: list[LeaderboardRow]) -> float:
    """Inches for a table's panel: its rows (a row taller where its label takes more lines), title and axis."""
    labels, shared = model_labels(rows, PLOT_LABEL_CHARS)
    return row_positions(labels)[1] + LINE_IN * len(panel_title(table, shared)) + 0.45


def row_positions(labels: list[list[str]]) -> tuple[list[float], float]:
    """The height (in inches from the bottom) of each row's middle, the first on top, each row ROW_IN + LINE_IN
    per line of its label; and the height of them all."""
    heights = [ROW_IN + LINE_IN * len(label) for label in labels] or [ROW_IN + LINE_IN]
    total = sum(heights)
    tops = [total - sum(heights[:i]) for i in range(len(labels))]
    return [top - height / 2 for top, height in zip(tops, heights, strict=False)], total


def panel_title(table: LeaderboardTable, shared: str) -> list[str]:
    """The title's lines: table, benchmark and judge, and the parenthetical every model label shares, whole."""
    lines = wrap(f"{table.id}: {table.benchmark}", TITLE_CHARS) + wrap(f"judge {table.judge or '-'}", TITLE_CHARS)
    return lines + (wrap(f"every model: ... {shared}", TITLE_CHARS) if shared else [])


def forest_panel(axis, table: LeaderboardTable, rows: list[LeaderboardRow]) -> None:
    labels, shared = model_labels(rows, PLOT_LABEL_CHARS)
    positions, total = row_positions(labels)  # the highest figure on top
    for y, row in zip(positions, rows, strict=True):
        if row.score is None:
            continue
        if row.low is not None and row.high is not None:
            axis.plot([row.low, row.high], [y, y], color=COLOUR, linewidth=1.2, solid_capstyle="butt")
        axis.plot([row.score], [y], marker="o", markersize=3.5, color=COLOUR)
    axis.set_yticks(positions)
    axis.set_yticklabels(["\n".join(label) for label in labels])
    axis.set_ylim(0, total)
    axis.set_xlabel(f"{table.figure}, 95% CI")
    axis.set_title("\n".join(panel_title(table, shared)), loc="left")
    axis.grid(axis="x", linewidth=0.3, alpha=0.6)
    axis.spines["top"].set_visible(False)
    axis.spines["right"].set_visible(False)


def rank_panel(axis, rows: list[LeaderboardRow]) -> None:
    """Per row: its rank range as a bar, a tick at the rank of each run it cannot be separated from (drawn with
    gid `unseparated:RUN`), its own rank as a dot. Rows without a rank are left blank."""
    from matplotlib.ticker import MaxNLocator

    positions, total = row_positions(model_labels(rows, PLOT_LABEL_CHARS)[0])
    partners = unseparated(rows)
    rank_of = {row.run: row.rank for row in rows}
    for y, row in zip(positions, rows, strict=True):
        if row.rank is None or row.rank_low is None or row.rank_high is None:
            continue
        axis.plot([row.rank_low, row.rank_high], [y, y], color=RANGE_COLOUR, linewidth=1.0, alpha=0.7)
        ranks = sorted(rank_of[run] for run in partners[row.run])
        axis.plot(ranks, [y] * len(ranks), "|", color=RANGE_COLOUR, markersize=5, gid=f"unseparated:{row.run}")
        axis.plot([row.rank], [y], marker="o", markersize=3.5, color=COLOUR)
    axis.set_xlim(0.5, max(len(rows), 1) + 0.5)
    axis.set_ylim(0, total)
    axis.xaxis.set_major_locator(MaxNLocator(nbins=4, integer=True, min_n_ticks=1))
    axis.set_yticks([])
    axis.set_xlabel("rank (range)")
    axis.grid(axis="x", linewidth=0.3, alpha=0.6)
    for side in ("top", "right", "left"):
        axis.spines[side].set_visible(False)


__all__ = [
    "COMPACT_TEX_COLUMNS",
    "FILES",
    "MARKER",
    "TEX_COLUMNS",
    "check_out_folder",
    "forest_figure",
    "latex",
    "parse_tex_columns",
    "unseparated",
    "write_leaderboard",
]
