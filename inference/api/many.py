"""Many runs in one call: `runs` (every run folder in or under folders and `hf://` paths, as RunResults) and
`samples` (one DataFrame of every row of every run, as inspect_ai's `samples_df` gives one of every sample)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from ..hub.paths import is_hub_path
from ..hub.run_copy import local_runs
from ..report.leaderboard_build import run_folders
from ..report.run_checks import checked_runs
from ..runner import Run
from .arguments import path_argument, run_list
from .frames import ROW_COLUMNS, frame
from .result import RunResult, run_result
from .settings import refused

if TYPE_CHECKING:
    import pandas

Sources = Iterable[str | Path | RunResult] | str | Path
SAMPLE_COLUMNS = ("run", "model", "judge", "benchmark", *ROW_COLUMNS[2:], "folder")


def found_folders(sources: Sources, field: str = "sources") -> list[Path]:
    """The run folders of `sources`: each run folder, the scored runs below each other folder, the runs of each hf://
    path (copied as `report` copies them, to runs/hf/...); each once, in the order given."""
    given = run_list(sources, RunResult, field)  # a bare str or Path is one source, never walked letter by letter
    paths = [run.folder if isinstance(run, RunResult) else path_argument(field, run) for run in given]
    if not paths:
        raise refused(field, "no runs given; name run folders, folders of runs or hf://datasets/... runs")
    try:
        found = [local_runs([path]) if is_hub_path(path) else run_folders([Path(path)]) for path in paths]
    except FileNotFoundError as error:
        raise refused(field, str(error)) from None
    return list(dict.fromkeys(folder for of_source in found for folder in of_source))


def runs(sources: Sources) -> list[RunResult]:
    """A RunResult for every run folder in or under `sources` (run folders, folders of runs, hf://datasets/ORG/NAME
    [/PATH], RunResults; one of them given alone is one source), read as `open_run` reads one: nothing written in
    it. Anything else (bytes, a number, a dict) is a ConfigError naming `sources`."""
    folders = found_folders(sources)
    checked_runs(folders)  # every file it reads, before it is trusted
    return [run_result(Run.open(folder, read_only=True)) for folder in folders]


def samples(sources: Sources) -> pandas.DataFrame:
    """One row per evaluated sample of every run of `sources` (as `runs` finds them): run (the model's display
    name), model (its id), judge (its display name), benchmark, id, task, subcategory, score, words, the judge's
    parsed verdict and raw completion, ..., and the run's folder: each run's `to_pandas("rows")` with who made it."""
    parts = [part for part in map(sample_frame, runs(sources)) if len(part)]
    if not parts:
        return frame([], SAMPLE_COLUMNS)
    table = concat(parts)
    return table[[*SAMPLE_COLUMNS, *(column for column in table.columns if column not in SAMPLE_COLUMNS)]]


def sample_frame(result: RunResult) -> pandas.DataFrame:
    rows = result.to_pandas("rows")
    rows.insert(1, "model", result.model)
    rows.insert(2, "judge", result.judge_name)
    rows["folder"] = str(result.folder)
    return rows


def concat(parts: list[pandas.DataFrame]) -> pandas.DataFrame:
    import pandas

    return pandas.concat(parts, ignore_index=True)


__all__ = ["runs", "samples"]
