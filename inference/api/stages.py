"""The runner's stages as calls: `run` (generate -> judge -> score -> report), `generate`, `judge` and `score`."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..backends import check_installed
from ..backends.shared import SharedBackends
from ..report.markdown import save_invocation, write_report
from ..report.run_checks import check_record_logs
from ..report.scores_file import scores_if_scored
from ..runner import Run, RunConfig
from ..runner.folder import CONFIG_FILE, check_writable_folder, read_config
from ..runner.inputs import baseline_folder, records_hash
from ..runner.lock import lock_file_path, unlock_run_folder
from ..runner.parallel import is_main_process, process_rank, process_state
from .arguments import benchmark_argument, folder_argument, model_argument, path_argument
from .config_build import build_config
from .defaults import DEFAULT_OUT
from .judge_changes import judge_changes
from .result import RunResult, run_result
from .settings import JUDGE_SETTINGS, refused, settings_from

ALL_STAGES = ("generate", "judge", "score", "report")
LABELS = ("name", "judge_name")  # RunConfig's display names


@dataclass
class StageClock:
    """Wall time of each stage of one run folder in this invocation (kept in the folder's timings.json)."""

    started: str = field(default_factory=lambda: datetime.now(timezone.utc).isoformat(timespec="milliseconds"))
    seconds: dict[str, float] = field(default_factory=dict)

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        began = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[name] = round(time.perf_counter() - began, 3)

    def save(self, run: Run) -> None:
        invocation = {"started": self.started, "seconds": self.seconds}
        save_invocation(run.folder, invocation | {"model_calls": run.model_calls, "judge_calls": run.judge_calls})


def run_stages(run: Run, stages: tuple[str, ...], backends: SharedBackends) -> StageClock | None:
    """The stages asked for, each timed; None on the processes of a data-parallel launch that only generate."""
    clock = StageClock()
    if "generate" in stages:
        with clock.stage("generate"):
            run.generate(backends.get)
    if not is_main_process():
        return None
    if "judge" in stages:
        with clock.stage("judge"):
            run.judge(backends.get)
    if "score" in stages:
        with clock.stage("score"):
            if not scored_already(run):
                run.score()
    clock.save(run)
    if "report" in stages:
        with clock.stage("report"):
            write_report(run.folder)
        clock.save(run)
    return clock


def scored_already(run: Run) -> bool:
    """Whether this command made no model or judge call and the folder's scores.json was scored from what the
    folder holds now (its `inputs`: records, config.yaml, rows and the code's identity): a rerun of a finished run
    keeps it (the `score` command always scores again). Not for a plug-in benchmark (its code is not in the code's
    identity) or a data-parallel launch (another process's failed calls are counted in scores.json)."""
    if run.model_calls or run.judge_calls or process_state() is not None:
        return False
    if not type(run.benchmark).__module__.startswith("longform_eval."):
        return False
    try:
        stored = scores_if_scored(run.folder)
    except (OSError, ValueError):  # a damaged scores.json is scored again
        return False
    return stored is not None and stored.inputs == records_hash(run.folder, baseline_folder(run.config.benchmark_args))


@contextmanager
def locked(folder: Path) -> Iterator[None]:
    """The folder's lock (taken by `Run.create`) is released when the call returns, as when a command ends."""
    try:
        yield
    finally:
        unlock_run_folder(lock_file_path(folder, process_rank()))


def out_folder(out: str | Path | None, benchmark: str) -> Path:
    given = path_argument("out", out, optional=True)
    folder = Path(given) if given is not None else DEFAULT_OUT / benchmark.replace(":", "-")
    if folder.exists() and not folder.is_dir():
        raise refused("out", "is a file, expected a folder (an existing one or a new one)", str(folder))
    return folder


def run_config(
    benchmark: str, model: str | None, judge: str | None, out: str | Path | None, settings: dict[str, Any], run: bool
) -> tuple[Path, RunConfig, bool]:
    """Every setting checked, before any folder is touched: (folder, config, force)."""
    benchmark = benchmark_argument(benchmark)
    model, judge = model_argument("model", model), model_argument("judge", judge)
    chosen = settings_from(settings)
    return out_folder(out, benchmark), build_config(benchmark, model, judge, chosen, run=run), chosen.force


def run(
    benchmark: str = "hellobench:chat",
    model: str | None = None,
    judge: str | None = None,
    out: str | Path | None = None,
    **settings: Any,
) -> RunResult:
    """generate -> judge -> score -> report into `out` (resumable), as `longform-eval run` does for one benchmark."""
    folder, config, force = run_config(benchmark, model, judge, out, settings, run=True)
    return staged(folder, config, force, ALL_STAGES)


def generate(
    benchmark: str = "hellobench:chat",
    model: str | None = None,
    judge: str | None = None,
    out: str | Path | None = None,
    **settings: Any,
) -> RunResult:
    """Only generate (resumable); `judge(out)` and `score(out)` follow (the judge may be named here or there)."""
    folder, config, force = run_config(benchmark, model, judge, out, settings, run=False)
    return staged(folder, config, force, ("generate",))


def staged(folder: Path, config: RunConfig, force: bool, stages: tuple[str, ...]) -> RunResult:
    backends = SharedBackends()
    with locked(folder):
        try:
            found, _ = execute(folder, config, force, stages, backends)
        finally:
            backends.close()
        return run_result(found)


def execute(
    folder: Path, config: RunConfig, force: bool, stages: tuple[str, ...], backends: SharedBackends
) -> tuple[Run, StageClock | None]:
    """Create (or resume) the run folder of a checked config and run the stages asked for: the one road by which the
    API and the CLI's `run` and `generate` make calls."""
    check_backends_installed(folder, config, stages)
    found = Run.create(folder, with_stored_labels(folder, config), force=force)
    return found, run_stages(found, stages, backends)


def check_backends_installed(folder: Path, config: RunConfig, stages: tuple[str, ...]) -> None:
    """A new run folder is made only if the backends its stages call are installed: a missing extra is refused
    before the folder exists (a started run resumes without them while it has no call to make)."""
    if (folder / CONFIG_FILE).exists():
        return
    roles = [config.model if "generate" in stages else None, config.judge if "judge" in stages else None]
    for spec in filter(None, roles):
        check_installed(spec)


def with_stored_labels(folder: Path, config: RunConfig) -> RunConfig:
    """A resumed run keeps the display names it was given (`name`, `judge_name`) unless new ones are given."""
    try:
        stored = read_config(folder) if (folder / CONFIG_FILE).is_file() else {}
    except (OSError, ValueError):  # a damaged folder: `Run.create` names the problem
        return config
    kept = {key: stored.get(key) for key in LABELS if getattr(config, key) is None and isinstance(stored.get(key), str)}
    return config.model_copy(update=kept) if kept else config


def judge(run_folder: str | Path, judge: str | None = None, **judge_settings: Any) -> RunResult:
    """Judge the generations of a run folder (resumable), with the judge and judge settings given or stored."""
    folder, judge = folder_argument("run_folder", run_folder), model_argument("judge", judge)
    chosen = settings_from(judge_settings, JUDGE_SETTINGS)
    stored = RunConfig.model_validate(read_config(folder))
    changes = judge_changes(stored, judge, chosen, set(judge_settings))
    with locked(folder):
        found, _ = judge_folder(folder, changes, chosen.force)
        return run_result(found)


def judge_folder(folder: Path, changes: dict[str, Any], force: bool) -> tuple[Run, int]:
    """Open a run folder with its judge settings changed, and judge what is pending: (the run, unscored written)."""
    found = Run.open(folder, force=force, **changes)
    return found, found.judge()


def score(run_folder: str | Path) -> RunResult:
    """Compute scores.json of a run folder (the calls still pending are left out, and counted)."""
    folder = folder_argument("run_folder", run_folder)
    with locked(folder):
        return run_result(score_folder(folder))


def score_folder(folder: Path) -> Run:
    """Every file of the folder checked before it is opened for writing, then scores.json written."""
    read_config(folder)  # a folder of another schema is named as such, not by its records
    check_writable_folder(folder)  # a log that is a link or no regular file is named as such
    check_record_logs(folder)  # every record, before the folder is opened for writing
    found = Run.open(folder)
    found.score()
    return found
