"""How far outputs land from the length their prompts asked for, for every run that has such prompts.

A benchmark says which of its outputs were asked for a length through `Benchmark.length_targets` (in its own unit:
LongBench-Write's required length, HelloBench's "no shorter than N words", LongGenBench's word budget); this module
knows nothing else about any benchmark. `longform-eval report FOLDER...` writes one table and one plot over all
the given runs that have targets: `length_following.md` and `length_following.png`, in the deepest folder that
holds every given run folder (the run folder itself when there is one; the current directory when they share only
the filesystem root).
"""

from __future__ import annotations

import os
import statistics
from dataclasses import dataclass
from pathlib import Path

from longform_eval.common.atomic import write_text_atomic
from longform_eval.metric.longbench_write import length_score

from ..benchmarks import LengthTarget
from .markdown import benchmark_of, load_scores
from .sections.plots import Absent, loglog_scatter
from .sections.tables import fmt, markdown_table

NAME = "length_following"
WITHIN = 0.2  # "on target": the output is within 20% of the length asked for


@dataclass
class RunLengths:
    folder: Path
    benchmark: str
    model: str
    targets: list[LengthTarget]


def run_lengths(folders: list[Path]) -> list[RunLengths]:
    """The runs among `folders` whose benchmark reports length targets."""
    found = []
    for folder in folders:
        scores = load_scores(folder)
        targets = benchmark_of(scores).length_targets(scores)
        if targets:
            found.append(RunLengths(Path(folder), f"{scores.benchmark}:{scores.config}", scores.model, targets))
    return found


def summary_row(run: RunLengths) -> tuple:
    targets = run.targets
    ratios = [t.actual / t.required for t in targets]
    return (
        str(run.folder),
        run.benchmark,
        run.model,
        " / ".join(sorted({t.kind for t in targets})),
        " / ".join(sorted({t.unit for t in targets})),
        len(targets),
        fmt(statistics.median(ratios)),
        fmt(100 * sum(abs(r - 1) <= WITHIN for r in ratios) / len(ratios), 1) + "%",
        fmt(100 * sum(r >= 1 for r in ratios) / len(ratios), 1) + "%",
        fmt(statistics.fmean(length_score(t.required, t.actual) for t in targets)),
    )


def length_lines(runs: list[RunLengths]) -> list[str]:
    return [
        "# Length following across runs",
        "",
        "Each output against the length its prompt asked for, in the benchmark's own unit: a target (`about`) or a "
        f"minimum (`at least`). Within ±{WITHIN:.0%}: actual / required in [{1 - WITHIN:g}, {1 + WITHIN:g}]. "
        "S_l-style: LongBench-Write's length score (100 at the length asked for, 0 at a third of it or four times "
        "it) applied to every run, minimums included.",
        "",
        *markdown_table(
            (
                "run",
                "benchmark",
                "model",
                "asked",
                "unit",
                "outputs",
                "median actual / required",
                f"within ±{WITHIN:.0%}",
                "at or above required",
                "mean S_l-style",
            ),
            [summary_row(run) for run in runs],
        ),
        "",
        f"![{NAME}]({NAME}.png)",
    ]


def output_folder(folders: list[Path]) -> Path:
    common = Path(os.path.commonpath([str(Path(folder).resolve()) for folder in folders]))
    return common if common.parent != common else Path.cwd()


def write_length_view(folders: list[Path], out: Path | None = None) -> tuple[Path, list[str]] | None:
    """Write the table and the plot for the runs that have length targets; None when none has."""
    runs = run_lengths(folders)
    if not runs:
        return None
    out = out or output_folder(folders)
    plot = loglog_scatter(
        out / f"{NAME}.png",
        {
            f"{run.folder} ({run.benchmark})": ([t.required for t in run.targets], [t.actual for t in run.targets])
            for run in runs
        },
        xlabel="length asked for (each benchmark's unit)",
        ylabel="output length",
        title="Length following across runs",
    )
    lines = length_lines(runs) + ([plot.sentence()] if isinstance(plot, Absent) else [])
    return write_text_atomic(out / f"{NAME}.md", "\n".join(lines) + "\n"), lines


def print_length_view(folders: list[Path]) -> None:
    """Print the table and where it was written, for `longform-eval report`; nothing when no run has targets."""
    written = write_length_view(folders)
    if written is not None:
        path, lines = written
        print("\n".join(lines[:-1]).rstrip())
        print(f"{path} (plot: {path.with_suffix('.png')})")
