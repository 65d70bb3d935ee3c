"""Scored runs read back: `open_run` (a local folder or a run shared on the Hub) and `compare` (paired differences)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, Any

from longform_eval.common.plurals import counted

from ..hub.run_copy import local_runs
from ..report.comparison_groups import comparisons_document
from ..report.comparisons import compared_runs
from ..report.run_checks import checked_runs
from ..report.sections.tables import fmt_p, signed_with_interval
from ..runner import Run
from ..runner.folder import run_labels
from .arguments import path_argument, run_list
from .result import RunResult, interval_text, number, run_result
from .settings import refused

if TYPE_CHECKING:
    import pandas

SHOWN_PAIRS = 12  # comparisons shown in a notebook's table


def open_run(path_or_hf: str | Path, out: str | Path | None = None) -> RunResult:
    """A scored run folder, or `hf://datasets/ORG/NAME[/PATH]` (copied to `out`, default runs/hf/ORG/NAME[/PATH]),
    read as it is: no lock, nothing written."""
    source, out = path_argument("path_or_hf", path_or_hf), path_argument("out", out, optional=True)
    folders = local_runs([source], Path(out) if out is not None else None)
    if len(folders) != 1:
        raise refused("path_or_hf", f"holds {counted(len(folders), 'run')}; name one of them", str(path_or_hf))
    checked_runs(folders)  # every file it reads, before it is trusted
    return run_result(Run.open(folders[0], read_only=True))


@dataclass(frozen=True)
class Comparison:
    """a - b on figure `figure`, on the units both runs scored; distinguishable: the interval excludes 0. `a` and `b`
    are the run folders, `a_name` and `b_name` the models as people read them (display names, else model ids)."""

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
    a_name: str = ""
    b_name: str = ""

    def line(self, names: bool = False) -> str:
        """One line; `names`: the runs by display name (else by folder)."""
        a, b = (self.a_name or self.a, self.b_name or self.b) if names else (self.a, self.b)
        if self.difference is None or self.interval is None:
            return f"{self.figure}: {a} - {b}: no shared units"
        low, high = self.interval
        return f"{self.figure}: {a} - {b} = {signed_with_interval(self.difference, low, high)}, {self.verdict()}"

    def verdict(self) -> str:
        if self.difference is None or self.interval is None:
            return "no shared units"
        p = fmt_p(self.p_value)
        return f"p {p if p.startswith('<') else '= ' + p}: {'distinguishable' if self.distinguishable else 'a tie'}"


@dataclass(frozen=True)
class Comparisons:
    """Every pair of the given runs that can be compared (`report.comparability`), each figure with an interval
    (headline first)."""

    pairs: tuple[Comparison, ...]

    def table(self) -> str:
        """A line per pair and figure, the runs by display name (by folder where two runs share one)."""
        named = len({pair.a_name for pair in self.pairs} | {pair.b_name for pair in self.pairs}) == len(self.runs())
        return (
            "\n".join(pair.line(names=named) for pair in self.pairs)
            or "no two runs can be compared (the same benchmark config and options, dataset, prompts and judge)"
        )

    def runs(self) -> set[str]:
        return {pair.a for pair in self.pairs} | {pair.b for pair in self.pairs}

    def __str__(self) -> str:
        return self.table()

    def __len__(self) -> int:
        return len(self.pairs)

    def __iter__(self):
        return iter(self.pairs)

    def __repr__(self) -> str:
        if not self.pairs:
            return "<Comparisons: no two runs can be compared (benchmark config and options, dataset, prompts, judge)>"
        first = self.pairs[0]
        more = f"; {len(self.pairs) - 1} more" if len(self.pairs) > 1 else ""
        pairs = counted(len(self.pairs), "pair")
        return f"<Comparisons {first.benchmark}, {pairs} and figures: {first.line(names=True)}{more}>"

    def _repr_html_(self) -> str:
        head = "<tr><th>a</th><th>b</th><th>figure</th><th>a - b</th><th>95% interval</th><th></th></tr>"
        cells = "".join(
            f"<tr><td>{escape(pair.a_name or pair.a)}</td><td>{escape(pair.b_name or pair.b)}</td>"
            f"<td>{escape(pair.figure)}</td><td>{number(pair.difference, pair.interval)}</td>"
            f"<td>{interval_text(pair.interval, pair.difference)}</td>"
            f"<td>{escape(pair.verdict())}</td></tr>"
            for pair in self.pairs[:SHOWN_PAIRS]
        )
        more = len(self.pairs) - SHOWN_PAIRS
        rest = f"<p>{more} more: <code>to_pandas()</code></p>" if more > 0 else ""
        return f"<table>{head}{cells}</table>{rest}" if cells else f"<p>{escape(self.table())}</p>"

    def to_pandas(self) -> pandas.DataFrame:
        """One row per pair and figure: benchmark, a, b (display names), figure, difference (a - b), low, high, p,
        distinguishable, units, paired, a_folder, b_folder."""
        from .frames import comparison_frame

        return comparison_frame(self)


def compare(runs: Iterable[str | Path | RunResult] | str | Path) -> Comparisons:
    """Paired comparisons between scored runs (folders, hf:// runs or RunResults), as `longform-eval report` writes
    them to comparisons.json; nothing is written here. One folder or hf:// path given alone is one run source (an
    hf:// path may hold several runs)."""
    given = run_list(runs, RunResult)
    folders = local_runs([run.folder if isinstance(run, RunResult) else path_argument("runs", run) for run in given])
    checked_runs(folders)
    document = comparisons_document(compared_runs(folders)) or {"comparisons": []}
    names = {str(folder): model_label(folder) for folder in folders}
    return Comparisons(tuple(comparison(entry, names) for entry in document["comparisons"]))


def model_label(folder: Path) -> str:
    """The model of a run folder as people read it (config.yaml's display name, else the model id)."""
    return run_labels(Path(folder))[0]


def comparison(entry: dict[str, Any], names: dict[str, str] | None = None) -> Comparison:
    names = names or {}
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
        a_name=names.get(entry["a"], entry["a"]),
        b_name=names.get(entry["b"], entry["b"]),
    )


__all__: Sequence[str] = ["Comparison", "Comparisons", "compare", "open_run"]
