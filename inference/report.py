"""report.md and plots for a run folder, and a side-by-side leaderboard of several runs.

The run's counts and deviations are common to every benchmark; the figures, tables and plots are the
benchmark's own (`Benchmark.report_section`, `Benchmark.headline`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from longform_eval.dataset_builder.atomic import write_text_atomic

from .benchmarks import create_benchmark
from .report_tables import fmt


def load_scores(folder: Path) -> dict[str, Any]:
    path = Path(folder) / "scores.json"
    if not path.is_file():
        raise FileNotFoundError(f"{path}: missing; run `longform-eval score {folder}` first")
    return json.loads(path.read_text(encoding="utf-8"))


def write_report(folder: str | Path) -> Path:
    folder = Path(folder)
    scores = load_scores(folder)
    benchmark = create_benchmark(scores["benchmark"], scores.get("config"))
    lines = [
        f"# {scores['benchmark']}:{scores.get('config')}: {scores['model']}",
        "",
        f"Judge: `{scores.get('judge')}`.",
    ]
    lines += [
        "",
        f"Samples: {scores['n_samples']}; generated: {scores['n_generated']}; "
        f"truncated generations (hit max_new_tokens): {scores['n_truncated_generations']}.",
        "",
    ]
    if not scores.get("complete", True):
        lines += [
            f"**Incomplete run**: {scores.get('n_pending_generations')} generations and "
            f"{scores.get('n_pending_judge_calls')} judge calls are still pending (failed calls are logged in "
            "failures.jsonl); the figures below cover what is done. Run the same command again to finish.",
            "",
        ]
    if scores.get("deviations"):
        lines += [
            "**Deviations from the paper's settings** (scores are not comparable with the paper):",
            *[f"- {d}" for d in scores["deviations"]],
            "",
        ]
    if scores.get("parser_rescues"):
        rescues = ", ".join(f"{name} {n}" for name, n in scores["parser_rescues"].items())
        lines += [f"Verdicts saved by the lenient parser: {rescues}.", ""]
    section = benchmark.report_section(scores, folder)
    lines += [*section.lines, "", *[f"![{p.stem}]({p.name})" for p in section.plots]]
    return write_text_atomic(folder / "report.md", "\n".join(lines) + "\n")


def leaderboard(folders: list[Path]) -> Table:
    """One row per run: the headline figures side by side."""
    table = Table(title="leaderboard")
    for column in ("run", "benchmark", "model", "judge", "score", "details", "unscored", "complete"):
        table.add_column(column)
    for folder in folders:
        scores = load_scores(folder)
        headline, details = create_benchmark(scores["benchmark"], scores.get("config")).headline(scores)
        table.add_row(
            str(folder),
            f"{scores['benchmark']}:{scores.get('config')}",
            scores["model"],
            str(scores.get("judge")),
            headline,
            details,
            str(scores.get("n_unscored", 0)),
            "yes" if scores.get("complete", True) else "no",
        )
    return table


def print_leaderboard(folders: list[Path]) -> None:
    console = Console()
    console.width = max(console.width, 150)
    console.print(leaderboard(folders))


__all__ = ["fmt", "leaderboard", "load_scores", "print_leaderboard", "write_report"]
