"""Scored runs read back: `open_run` (a local folder or a run shared on the Hub) and `compare` (paired differences)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..hub.run_copy import local_runs
from ..report.comparisons import compared_runs, comparisons_document
from ..report.run_checks import checked_runs
from ..runner import Run
from .result import RunResult, run_result
from .settings import refused


def open_run(path_or_hf: str | Path, out: str | Path | None = None) -> RunResult:
    """A scored run folder, or `hf://datasets/ORG/NAME[/PATH]` (copied to `out`, default runs/hf/ORG/NAME[/PATH]),
    read as it is: no lock, nothing written."""
    folders = local_runs([path_or_hf], Path(out) if out is not None else None)
    if len(folders) != 1:
        raise refused("path_or_hf", f"holds {len(folders)} runs; name one of them", str(path_or_hf))
    checked_runs(folders)  # every file it reads, before it is trusted
    return run_result(Run.open(folders[0], read_only=True))


@dataclass(frozen=True)
class Comparison:
    """a - b on figure `figure`, on the units both runs scored; distinguishable: the interval excludes 0."""

    a: str
    b: str
    benchmark: str
    figure: str
    difference: float | None
    interval: tuple[float, float] | None
    p_value: float | None
    distinguishable: bool | None
    paired: bool
    units: int | None

    def line(self) -> str:
        if self.difference is None or self.interval is None:
            return f"{self.figure}: {self.a} - {self.b}: no shared units"
        verdict = "distinguishable" if self.distinguishable else "a tie"
        low, high = self.interval
        return (
            f"{self.figure}: {self.a} - {self.b} = {self.difference:+.4g} [{low:+.4g}, {high:+.4g}], "
            f"p = {self.p_value:.3g}: {verdict}"
        )


@dataclass(frozen=True)
class Comparisons:
    """Every pair of the given runs that share a benchmark config, each figure with an interval (headline first)."""

    pairs: tuple[Comparison, ...]

    def table(self) -> str:
        return "\n".join(pair.line() for pair in self.pairs) or "no two runs share a benchmark config"

    def __str__(self) -> str:
        return self.table()

    def __len__(self) -> int:
        return len(self.pairs)

    def __iter__(self):
        return iter(self.pairs)


def compare(runs: Iterable[str | Path | RunResult]) -> Comparisons:
    """Paired comparisons between scored runs (folders, hf:// runs or RunResults), as `longform-eval report` writes
    them to comparisons.json; nothing is written here."""
    folders = local_runs([run.folder if isinstance(run, RunResult) else run for run in runs])
    checked_runs(folders)
    document = comparisons_document(compared_runs(folders)) or {"comparisons": []}
    return Comparisons(tuple(comparison(entry) for entry in document["comparisons"]))


def comparison(entry: dict[str, Any]) -> Comparison:
    low, high = entry.get("low"), entry.get("high")
    return Comparison(
        a=entry["a"],
        b=entry["b"],
        benchmark=entry["benchmark"],
        figure=entry["figure"],
        difference=entry.get("difference"),
        interval=(low, high) if low is not None and high is not None else None,
        p_value=entry.get("p_value"),
        distinguishable=entry.get("distinguishable"),
        paired=bool(entry.get("paired")),
        units=entry.get("n_paired"),
    )


__all__: Sequence[str] = ["Comparison", "Comparisons", "compare", "open_run"]
