"""report.md and plots for a run folder, and a side-by-side leaderboard of several runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from longform_eval.dataset_builder.atomic import replacing, write_text_atomic


def fmt(value: Any, digits: int = 2) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def load_scores(folder: Path) -> dict[str, Any]:
    path = folder / "scores.json"
    if not path.is_file():
        raise FileNotFoundError(f"{path}: missing; run `longform-eval score {folder}` first")
    return json.loads(path.read_text(encoding="utf-8"))


def write_report(folder: str | Path) -> Path:
    folder = Path(folder)
    scores = load_scores(folder)
    lines = [f"# {scores['benchmark']}: {scores['model']}", "", f"Judge: `{scores.get('judge')}`.", ""]
    lines += [
        f"Samples: {scores['n_samples']}; generated: {scores['n_generated']}; "
        f"truncated generations (hit max_new_tokens): {scores['n_truncated_generations']}.",
        "",
    ]
    if scores.get("deviations"):
        lines += [
            "**Deviations from the paper's settings** (scores are not comparable with the paper):",
            *[f"- {d}" for d in scores["deviations"]],
            "",
        ]
    plots = (
        hellobench_section(scores, folder, lines)
        if scores["benchmark"] == "hellobench"
        else (longgenbench_section(scores, folder, lines))
    )
    lines += ["", *[f"![{p.stem}]({p.name})" for p in plots]]
    return write_text_atomic(folder / "report.md", "\n".join(lines) + "\n")


def hellobench_section(scores: dict, folder: Path, lines: list[str]) -> list[Path]:
    lines += [
        f"**Overall HelloEval score: {fmt(scores['overall'])}** (mean of task scores, -300..100); "
        f"scored rows {scores['n_scored']}, unscored {scores['n_unscored']}; mean word count "
        f"{fmt(scores['mean_word_count'], 0)}.",
        "",
        "| task | score | mean row score | scored | unscored | words |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for task, t in scores["tasks"].items():
        lines.append(
            f"| {task} | {fmt(t['score'])} | {fmt(t['mean_row_score'])} | {t['n_scored']} | "
            f"{t['n_unscored']} | {fmt(t['mean_word_count'], 0)} |"
        )
    lines += ["", "| subcategory | mean row score (0..100) | scored | unscored |", "|---|---:|---:|---:|"]
    for sub, s in scores["subcategories"].items():
        lines.append(f"| {sub} | {fmt(s['mean_row_score'])} | {s['n_scored']} | {s['n_unscored']} |")
    if scores["unscored_reasons"]:
        lines += ["", "Unscored reasons:", *[f"- {r}: {n}" for r, n in scores["unscored_reasons"].items()]]
    return hellobench_plots(scores, folder)


def longgenbench_section(scores: dict, folder: Path, lines: list[str]) -> list[Path]:
    if not scores.get("n_items"):
        lines.append("No generations to score yet.")
        return []
    lines += [
        f"**CR {fmt(scores['cr'])}, STIC-1 {fmt(scores['stic1'])}, STIC-2 {fmt(scores['stic2'])}, "
        f"wAvg {fmt(scores['wavg'])}, Len {fmt(scores['length'], 0)}** (checks {scores['n_checks']}, judged "
        f"{scores['n_judged']}, yes {scores['n_yes']}, unscored {scores['n_unscored']}).",
        "",
        "| group | CR | STIC-1 | STIC-2 | checks | judged |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name, g in {**scores["by_type"], **scores["by_scenario"]}.items():
        lines.append(
            f"| {name} | {fmt(g.get('cr'))} | {fmt(g['stic1'])} | {fmt(g['stic2'])} | {g['n_checks']} | "
            f"{g['n_judged']} |"
        )
    return longgenbench_plots(scores, folder)


def pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(figure, path: Path) -> None:
    with replacing(path) as temporary:
        figure.savefig(temporary, dpi=110, format="png")


def hellobench_plots(scores: dict, folder: Path) -> list[Path]:
    plt = pyplot()
    tasks = [t for t, s in scores["tasks"].items() if s["score"] is not None]
    figure, axis = plt.subplots(figsize=(7, 3.5))
    axis.bar(tasks, [scores["tasks"][t]["score"] for t in tasks], color="#4c72b0")
    axis.axhline(0, color="black", linewidth=0.8)
    axis.set_ylabel("task score (-300..100)")
    axis.set_title(f"HelloEval score per task: {scores['model']}")
    axis.tick_params(axis="x", rotation=20)
    figure.tight_layout()
    per_task = folder / "score_per_task.png"
    save_figure(figure, per_task)
    plt.close(figure)
    rows = [r for r in scores.get("rows", []) if r["row_score"] is not None]
    figure, axis = plt.subplots(figsize=(6, 4))
    axis.scatter([r["words"] for r in rows], [r["row_score"] for r in rows], s=12, alpha=0.7)
    axis.set_xlabel("response words (nltk tokens)")
    axis.set_ylabel("row score (0..100)")
    axis.set_title("Score against length")
    figure.tight_layout()
    against_length = folder / "score_vs_words.png"
    save_figure(figure, against_length)
    plt.close(figure)
    return [per_task, against_length]


def longgenbench_plots(scores: dict, folder: Path) -> list[Path]:
    plt = pyplot()
    bins = scores["by_position"]
    figure, axis = plt.subplots(figsize=(6.5, 3.5))
    centres = [(b["start"] + b["end"]) / 2 for b in bins]
    axis.plot(centres, [b["stic1"] for b in bins], marker="o", label="STIC-1 (yes / judged)")
    axis.plot(centres, [b["stic2"] for b in bins], marker="s", label="STIC-2 (yes / all)")
    axis.set_xlabel("relative sub-task position")
    axis.set_ylabel("percent")
    axis.set_ylim(0, 100)
    axis.set_title("Instruction following as the output grows")
    axis.legend()
    figure.tight_layout()
    path = folder / "stic_by_position.png"
    save_figure(figure, path)
    plt.close(figure)
    return [path]


def leaderboard(folders: list[Path]) -> Table:
    """One row per run: the headline figures side by side."""
    all_scores = [(f, load_scores(f)) for f in folders]
    table = Table(title="leaderboard")
    for column in ("run", "benchmark", "model", "judge", "score / wAvg", "details", "unscored"):
        table.add_column(column)
    for folder, s in all_scores:
        if s["benchmark"] == "hellobench":
            headline = fmt(s["overall"])
            details = " ".join(f"{t[:4]} {fmt(v['score'])}" for t, v in s["tasks"].items())
        else:
            headline = fmt(s.get("wavg"))
            details = f"CR {fmt(s.get('cr'))} STIC-1 {fmt(s.get('stic1'))} STIC-2 {fmt(s.get('stic2'))}"
        table.add_row(
            str(folder), s["benchmark"], s["model"], str(s.get("judge")), headline, details, str(s.get("n_unscored", 0))
        )
    return table


def print_leaderboard(folders: list[Path]) -> None:
    console = Console()
    console.width = max(console.width, 150)
    console.print(leaderboard(folders))
