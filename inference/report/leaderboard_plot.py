"""The leaderboard's forest plot (leaderboard.png and .pdf), sized for a paper's column: each run's figure and
interval, and its rank range with the ranks of the runs it cannot be separated from (its own set, never a chain)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from longform_eval.common.atomic import replacing

from .leaderboard import Leaderboard, LeaderboardRow, LeaderboardTable
from .leaderboard_labels import model_labels, wrap
from .sections.plots import subplots

WIDTH_IN = 3.5  # one column of a two-column paper
FONT_PT = 7

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
    import matplotlib

    tables = [(table, plotted_rows(table)) for table in board.tables]
    heights = [panel_height(table, rows) for table, rows in tables] or [0.8]
    with matplotlib.rc_context({"font.size": FONT_PT, "axes.titlesize": FONT_PT + 1, "axes.labelsize": FONT_PT}):
        figure, axes = subplots(
            (WIDTH_IN, sum(heights)),
            nrows=len(heights),
            ncols=2,
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


__all__ = ["forest_figure", "forest_plot", "unseparated"]
