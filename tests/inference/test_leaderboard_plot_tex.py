"""The leaderboard's forest plot and .tex (issue 44, item 2): ties are each row's own set of runs it cannot be
separated from, never a chain; model labels are kept whole and distinct; the default .tex (rank, model, score) fits
one column of a two-column paper, and `--tex-columns` chooses a wider one. Tables are built from the dataclasses the
leaderboard is made of; the command line is run on a replay run of released HelloBench answers."""

from __future__ import annotations

import contextlib
import io
import re
import shutil
import subprocess
from pathlib import Path

import matplotlib
import pytest
from matplotlib.text import Text

import longform_eval as le
from longform_eval.inference.cli import main
from longform_eval.inference.report.leaderboard import Figure, Leaderboard, LeaderboardRow, LeaderboardTable
from longform_eval.inference.report.leaderboard_labels import wrap
from longform_eval.inference.report.leaderboard_plot import PLOT_LABEL_CHARS, forest_figure, unseparated
from longform_eval.inference.report.leaderboard_tex import TEX_COLUMNS, latex

from .test_leaderboard import replay_run

COLUMN_PT = 246  # one column of a two-column paper, with room: 3.4-3.5 in
SMALL_PT, FOOTNOTESIZE_PT = 9.0, 8.0  # \small and \footnotesize in a 10 pt article
RELEASED = (
    "internlm25_7b_1m (released answers)",
    "qwen2_72b (released answers)",
    "gpt4o_0806 (released answers)",
    "llama31_70b (released answers)",
    "glm4_9b_chat_1m_and_a_longer_tail (released answers)",
    "mistral_7b_instruct_v0.3 (released answers)",
)


def row(
    run: str,
    rank: int | None,
    low: int | None,
    high: int | None,
    score: float,
    model: str | None = None,
    deviations: tuple[str, ...] = (),
) -> LeaderboardRow:
    """A run of table T1 with its figure (+- 3), rank and rank range."""
    tasks = {"chat": Figure(score, score - 3, score + 3)}
    return LeaderboardRow(
        "T1", "hellobench:chat", "c", model or run, "gpt-4o", "overall", score, score - 3, score + 3,
        rank, low, high, 647, tasks, deviations, run,
    )  # fmt: skip


def board(*rows: LeaderboardRow, judge: str = "gpt-4o") -> Leaderboard:
    table = LeaderboardTable("T1", "hellobench:chat", judge, "overall", "prompt", 647, "the first table", {}, rows)
    return Leaderboard((table,))


def chain() -> list[LeaderboardRow]:
    """Six runs whose rank ranges overlap their neighbours': 48.6 cannot be told from 45.0, 45.0 not from 41.2...
    down to 23.6; a chain, not one tie."""
    scores, ranges = (48.6, 45.0, 41.2, 35.0, 28.0, 23.6), ((1, 2), (1, 3), (2, 4), (3, 5), (4, 6), (5, 6))
    return [
        row(f"run{rank}", rank, *ranges[rank - 1], scores[rank - 1], model=RELEASED[rank - 1]) for rank in range(1, 7)
    ]


@contextlib.contextmanager
def figure_of(leaderboard: Leaderboard):
    yield forest_figure(leaderboard)  # a Figure of its own (no pyplot): nothing to close


# ----- ties: each row's own set -----------------------------------------------------------------------------------
def test_a_chain_of_overlapping_rank_ranges_is_not_one_tie():
    a, b, c = row("A", 1, 1, 2, 50.0), row("B", 2, 1, 3, 45.0), row("C", 3, 2, 3, 40.0)
    assert unseparated([a, b, c]) == {"A": {"B"}, "B": {"A", "C"}, "C": {"B"}}
    found = unseparated(chain())
    assert "run6" not in found["run1"] and "run1" not in found["run6"]  # 48.6 and 23.6 are separated
    assert found["run1"] == {"run2"} and found["run6"] == {"run5"}
    assert unseparated([row("X", 1, 1, 1, 9.0), row("Y", None, None, None, 1.0)]) == {"X": set(), "Y": set()}


def test_the_plot_draws_each_rows_own_set_and_no_shared_tie_groups():
    with figure_of(board(*chain())) as figure:
        drawn = {
            line.get_gid().removeprefix("unseparated:"): set(line.get_xdata())
            for axis in figure.axes
            for line in axis.get_lines()
            if (line.get_gid() or "").startswith("unseparated:")
        }
        shaded = [patch for axis in figure.axes for patch in axis.patches]
        width, height = figure.get_size_inches()
        sizes = {text.get_fontsize() for text in figure.findobj(Text) if text.get_text().strip()}
    ranks = {f"run{rank}": rank for rank in range(1, 7)}
    assert drawn == {run: {ranks[other] for other in others} for run, others in unseparated(chain()).items()}
    assert drawn["run1"] == {2} and drawn["run6"] == {5}
    assert not shaded  # no band across several rows: a tie is a row's own, not a group's
    assert width == pytest.approx(3.5) and min(sizes) >= 7


# ----- labels: whole and distinct ---------------------------------------------------------------------------------
def test_long_labels_stay_whole_and_distinct_in_the_plot():
    with figure_of(board(*chain())) as figure:
        labels = [label.get_text() for label in figure.axes[0].get_yticklabels()]
        title = figure.axes[0].get_title(loc="left")
    assert len(set(labels)) == len(labels) == len(RELEASED)
    assert not any("..." in label or "\u2026" in label for label in labels)
    shown = {re.sub(r"\s", "", label) for label in labels}
    assert shown == {re.sub(r"\s", "", model.removesuffix(" (released answers)")) for model in RELEASED}
    assert "(released answers)" in " ".join(title.split())  # the part every label shares, said once
    assert all(len(line) <= PLOT_LABEL_CHARS for label in labels for line in label.split("\n"))


def test_labels_that_share_no_parenthetical_are_wrapped_not_cut_and_one_model_twice_is_told_apart():
    models = ("meta-llama/Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-70B-Instruct", "qwen2_72b (vllm)")
    rows = [row(f"runs/{i}", i + 1, i + 1, i + 1, 50.0 - i, model=model) for i, model in enumerate(models)]
    rows.append(row("runs/again", 4, 4, 4, 40.0, model="qwen2_72b (vllm)"))
    with figure_of(board(*rows)) as figure:
        labels = [label.get_text() for label in figure.axes[0].get_yticklabels()]
    assert len(set(labels)) == 4
    assert labels[0].split("\n")[0].startswith("meta-llama/")  # the start of a name first
    assert any("again" in label for label in labels)
    for text in ("internlm25_7b_1m (released answers)", "a" * 50, "x_" * 30, "one two three four five six seven"):
        lines = wrap(text, 22)
        assert all(len(line) <= 22 for line in lines)
        assert re.sub(r"\s", "", "".join(lines)) == re.sub(r"\s", "", text)


# ----- .tex: a column wide by default, wider on request -----------------------------------------------------------
def afm_widths() -> dict[str, float]:
    """Advance widths (per em) of Computer Modern Roman, from the AFM file matplotlib ships."""
    path = Path(matplotlib.get_data_path()) / "fonts" / "afm" / "cmr10.afm"
    widths = {}
    for line in path.read_text(encoding="latin-1").splitlines():
        if line.startswith("C "):
            fields = dict(part.strip().split(" ", 1) for part in line.split(";") if part.strip())
            code = int(fields["C"])
            if 32 < code < 123 and chr(code) not in '\\_{}<>|"^':  # where OT1 is ASCII
                widths[chr(code)] = float(fields["WX"]) / 1000
    return widths | {" ": 0.333, "\N{EN DASH}": 0.5, "_": 0.5, "{": 0.5, "}": 0.5, "\\": 0.5, "~": 0.5, "^": 0.5}


GLYPHS = afm_widths()
TEX_GLYPHS = {
    r"\_": "_", r"\%": "%", r"\&": "&", r"\#": "#", r"\$": "$", r"\{": "{", r"\}": "}", "--": "\N{EN DASH}",
    r"\textbackslash{}": "\\", r"\textasciitilde{}": "~", r"\textasciicircum{}": "^", "$n$": "n",
}  # fmt: skip


def text_width_pt(cell: str, size_pt: float) -> float:
    """An upper estimate of a cell's width in \\small (9 pt) or another size: the widest line of a nested tabular,
    each glyph at its Computer Modern width (+3% for the 9 pt design); a superscript mark at 70%."""
    return max(line_width_pt(line, size_pt) for line in unstacked(cell.replace(r"\footnotesize ", "")).split("\n"))


def unstacked(cell: str) -> str:
    """A cell's text with the lines of a nested tabular (a wrapped label) one a line."""
    return re.sub(r"\\begin\{tabular\}\[t\]\{@\{\}[lr]@\{\}\}|\\end\{tabular\}", "", cell).replace(r"\\\relax ", "\n")


def line_width_pt(line: str, size_pt: float) -> float:
    marks = re.findall(r"\$\^\{([^}]*)\}\$", line)
    line = re.sub(r"\$\^\{[^}]*\}\$", "", line)
    assert "\\" not in re.sub("|".join(map(re.escape, TEX_GLYPHS)), "", line), f"a command not measured: {line!r}"
    for command, glyph in TEX_GLYPHS.items():
        line = line.replace(command, glyph)
    unknown = [char for char in line if char not in GLYPHS]
    assert not unknown, f"no width for {unknown} in {line!r}"
    em = sum(GLYPHS[char] for char in line) + 0.7 * sum(GLYPHS[char] for mark in marks for char in mark)
    return em * size_pt * 1.03


def tabulars(text: str) -> list[tuple[str, list[list[str]], list[str]]]:
    """Each top-level tabular of leaderboard.tex: its column spec, its rows' cells, its notes (\\multicolumn)."""
    found = []
    for block in re.findall(r"^\\begin\{tabular\}\{(.*?)\}\n(.*?)^\\end\{tabular\}", text, flags=re.M | re.S):
        spec, body = block
        rows, notes = [], []
        for line in body.splitlines():
            if line.startswith("\\multicolumn"):
                notes.append(re.match(r"\\multicolumn\{\d+\}\{(?:@\{\})?l(?:@\{\})?\}\{(.*)\} \\\\$", line))
            elif line.endswith(r" \\"):
                rows.append(line.removesuffix(r" \\").split(" & "))
        found.append((spec, rows, [note.group(1) for note in notes]))
    return found


def table_width_pt(spec: str, rows: list[list[str]], notes: list[str]) -> float:
    """The estimated width of a tabular `@{}...@{}`: its columns' widest cells and 6 pt each side between columns;
    no narrower than its widest note."""
    columns = len(re.sub(r"@\{\}", "", spec))
    widest = [max(text_width_pt(cells[i], SMALL_PT) for cells in rows) for i in range(columns)]
    body = sum(widest) + 12 * (columns - 1)
    return max([body, *(text_width_pt(note, FOOTNOTESIZE_PT) for note in notes)])


def mixed() -> list[LeaderboardRow]:
    """Twelve runs with capitalised, slashed and long labels, ranks up to 12 with wide ranges, scores up to 100."""
    models = [
        "meta-llama/Llama-3.1-70B-Instruct", "Qwen/Qwen2.5-72B-Instruct (vllm, bf16)", "mistralai/Mixtral-8x22B",
        *RELEASED, "GPT-4o-2024-08-06", "Claude 3.5 Sonnet (API)", "internlm25_7b_1m (released answers)",
    ]  # fmt: skip
    return [
        row(f"runs/{i}", i, max(1, i - 3), min(12, i + 3), 100.0 - 4 * i, model=model, deviations=("t",) * (i % 2))
        for i, model in enumerate(models, start=1)
    ]


def test_the_default_tex_has_rank_model_and_score_and_fits_a_column():
    deviating = [
        row(r.run, r.rank, r.rank_low, r.rank_high, r.score, r.model, deviations=("temperature 0.7",)) for r in chain()
    ]
    text = latex(board(*deviating, judge="replay:judge_qwen2_7b/judge.jsonl"))
    ((spec, rows, notes),) = tabulars(text)
    assert re.sub(r"@\{\}", "", spec) == "rlr"
    assert rows[0] == ["Rank", "Model", r"overall [95\% CI]"] and rows[1][0] == "1 (1--2)"
    assert rows[1][1] == r"internlm25\_7b\_1m$^{*}$" and any("released answers" in note for note in notes)
    assert table_width_pt(spec, rows, notes) <= COLUMN_PT, table_width_pt(spec, rows, notes)
    ((spec, rows, notes),) = tabulars(latex(board(*mixed())))
    assert re.sub(r"@\{\}", "", spec) == "rlr" and len(rows) == 13
    assert table_width_pt(spec, rows, notes) <= COLUMN_PT, table_width_pt(spec, rows, notes)


def test_every_tex_cell_is_escaped():
    hostile = r"a&b_c%d #1 {x} ~y^z\end $"
    text = latex(board(row("runs/h", 1, 1, 1, 9.0, model=hostile)), ("rank", "model", "judge"))
    ((_, rows, _),) = tabulars(text)
    escaped = r"a\&b\_c\%d \#1 \{x\} \textasciitilde{}y\textasciicircum{}z\textbackslash{}end \$"
    assert re.sub(r"\s", "", unstacked(rows[1][1])) == re.sub(r"\s", "", escaped)


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed")
def test_the_default_tex_compiles_in_a_column_without_an_overfull_box(tmp_path):
    (tmp_path / "leaderboard.tex").write_text(latex(board(*chain())) + latex(board(*mixed())))
    document = (
        "\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n\\begin{table}\n"
        f"\\begin{{minipage}}{{{COLUMN_PT}pt}}\\input{{leaderboard.tex}}\\end{{minipage}}\n"
        "\\end{table}\n\\end{document}\n"
    )
    (tmp_path / "paper.tex").write_text(document)
    done = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "paper.tex"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    log = (tmp_path / "paper.log").read_text(errors="replace")
    assert done.returncode == 0, log[-2000:]
    assert "Overfull \\hbox" not in log


# ----- the command line: --tex-columns ----------------------------------------------------------------------------
def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def one_run(shared_data, tmp_path_factory) -> Path:
    """A replay run of Qwen2-7B's released answers and verdicts on 12 chat prompts."""
    folder = tmp_path_factory.mktemp("plot_tex_run")
    return replay_run(shared_data, "qwen2_7b", folder, folder / "runs" / "qwen2_7b")


def test_an_unknown_tex_column_is_refused_naming_it_and_the_allowed(one_run, tmp_path):
    code, _, err = run("leaderboard", str(one_run), "--out", str(tmp_path / "b"), "--tex-columns", "rank,modle")
    assert code == 2 and "--tex-columns" in err and "'modle'" in err and ",".join(TEX_COLUMNS) in err
    assert not (tmp_path / "b").exists()


def test_tex_columns_choose_a_wider_table_and_the_api_writes_the_compact_one(one_run, tmp_path):
    code, _, err = run(
        "leaderboard", str(one_run), "--out", str(tmp_path / "wide"), "--tex-columns", "rank,model,score,n,tasks,judge"
    )
    assert code == 0, err
    ((spec, rows, _),) = tabulars((tmp_path / "wide" / "leaderboard.tex").read_text())
    assert re.sub(r"@\{\}", "", spec) == "rlrrrl"
    assert rows[0] == ["Rank", "Model", r"overall [95\% CI]", "$n$", "chat", "Judge"] and rows[1][3] == "12"
    le.leaderboard([one_run], out=tmp_path / "api")
    ((spec, rows, _),) = tabulars((tmp_path / "api" / "leaderboard.tex").read_text())
    assert re.sub(r"@\{\}", "", spec) == "rlr" and len(rows[1]) == 3
