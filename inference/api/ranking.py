"""`leaderboard`: many scored runs as one table per comparable group, with ranks from paired comparisons."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from ..hub.paths import is_hub_path
from ..hub.run_copy import local_runs
from ..report.leaderboard import Leaderboard
from ..report.leaderboard_build import build_leaderboard, run_folders
from ..report.leaderboard_files import check_out_folder, write_leaderboard
from ..report.run_checks import checked_runs
from .arguments import path_argument, run_list
from .result import RunResult
from .settings import refused


def leaderboard(runs: Iterable[str | Path | RunResult] | str | Path, out: str | Path | None = None) -> Leaderboard:
    """The leaderboard of scored runs: run folders, folders holding run folders, `hf://datasets/ORG/NAME[/PATH]`
    (copied as `report` copies them, to runs/hf/...) or RunResults; one of them given alone is one source. Anything
    else (bytes, a number, a dict) is a ConfigError naming the field. Every run is read as `report` reads it (nothing
    written in it). With `out`, leaderboard.md/.csv/.json/.tex/.png/.pdf are written there: a new or empty folder,
    or one an earlier `leaderboard` wrote (anything else is refused before a run is read)."""
    given = run_list(runs, RunResult)  # a bare str or Path is one run source, never walked letter by letter
    sources = [run.folder if isinstance(run, RunResult) else path_argument("runs", run) for run in given]
    if not sources:
        raise refused("runs", "no runs given; name run folders, folders of runs or hf://datasets/... runs")
    out = path_argument("out", out, optional=True)
    if out is not None:
        check_out_folder(Path(out))
    found = [local_runs([source]) if is_hub_path(source) else run_folders([Path(source)]) for source in sources]
    folders = list(dict.fromkeys(folder for runs_of_source in found for folder in runs_of_source))
    checked_runs(folders)  # every file it reads, for every run, before anything is written
    board = build_leaderboard(folders)
    if out is not None:
        write_leaderboard(board, Path(out))
    return board


__all__ = ["Leaderboard", "leaderboard"]
