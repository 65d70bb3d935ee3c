"""The commands `run`, `generate`, `judge`, `score` and `report`, as they run (their options are `run.py`'s): the
stages through the API, then the leaderboard, the summary, and what stays pending or failed."""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from longform_eval.common.plurals import counted

from ..api.config_build import build_config
from ..api.defaults import DEFAULT_MODEL, DEFAULT_OUT
from ..api.judge_changes import judge_changes as api_judge_changes
from ..api.settings import JUDGE_SETTINGS, settings_from
from ..api.stages import StageClock, execute, judge_folder, score_folder
from ..backends.shared import SharedBackends
from ..hub.paths import is_hub_path
from ..hub.run_copy import hub_runs, local_runs
from ..progress import terminal_width
from ..report.calibration_view import print_calibration_view
from ..report.comparisons_view import print_comparison_view
from ..report.lengths import print_length_view
from ..report.markdown import print_leaderboard, write_report
from ..report.pairwise import print_pairwise_view
from ..report.power_plan import PowerReference, power_lines, power_reference
from ..report.run_checks import checked_runs
from ..report.summary import summary_lines
from ..runner import Run, RunConfig
from ..runner.pending import PendingCalls, pending_calls
from ..runner.run import read_config
from ..secret_values import scrub
from .args import DEFAULT_BENCHMARKS, run_settings, settings_of


def command_run(args: argparse.Namespace, stages: tuple[str, ...]) -> int:
    demo = not args.model and not args.benchmark
    benchmarks = args.benchmark or list(DEFAULT_BENCHMARKS)
    model, judge = args.model or DEFAULT_MODEL, args.judge or (DEFAULT_MODEL if demo else None)
    settings = run_settings(args, model, judge)
    run = args.command == "run"
    configs = [(name, build_config(name, model, judge, settings, demo, run)) for name in benchmarks]  # checked first
    power = power_reference(args, [config for _, config in configs])
    backends = SharedBackends()
    done: list[tuple[Run, StageClock]] = []
    for benchmark_name, config in configs:
        single = args.out and len(benchmarks) == 1
        out = args.out if single else (args.out or DEFAULT_OUT) / benchmark_name.replace(":", "-")
        if args.dry_run:
            planned = Run.create(out, config, force=args.force, read_only=True)  # nothing written
            print_dry_run(planned, power, judged="judge" in stages)
            continue
        run, clock = execute(out, config, args.force, stages, backends)
        if clock is not None:
            done.append((run, clock))
            print(f"{run.folder}: model calls {run.model_calls}, judge calls {run.judge_calls}", file=sys.stderr)
    backends.close()
    if done and "score" in stages:
        print_leaderboard([run.folder for run, _ in done])
        print_summary(done)
    failed = report_failures([run for run, _ in done if run.failed])
    if failed or "score" not in stages:
        return failed
    return report_pending([found for run, _ in done if (found := pending_calls(run)).count])  # e.g. a result missing


def print_summary(done: list[tuple[Run, StageClock]]) -> None:
    """Per run folder: the figure and its scale, scored / unscored counts and reasons, stage times, the report; at the
    terminal's width (`COLUMNS` wins), the figure and its interval on one line."""
    print("\nsummary")
    for run, clock in done:
        reasons = Counter(j.unscored_reason for j in run.current_judgements().values() if j.unscored_reason)
        print("\n".join(summary_lines(run.folder, clock.seconds, dict(reasons.most_common()), terminal_width())))


def report_failures(runs: list[Run]) -> int:
    """Failed calls are not results: say how many and why, and exit non-zero so that scripts notice."""
    if not runs:
        return 0
    for run in runs:
        failed = sum(run.failed.values())
        print(
            f"{run.folder}: {counted(failed, 'call')} failed and {'stays' if failed == 1 else 'stay'} pending (logged "
            f"in {run.failures.path}); run the same command again to retry them:",
            file=sys.stderr,
        )
        for reason, count in run.failed.most_common(5):
            print(f"  {count} x {scrub(reason)}", file=sys.stderr)
    return 1


def print_dry_run(run: Run, power: PowerReference | None = None, judged: bool = True) -> None:
    """The calls a run would make and the token limits chosen; `judged`: the command judges too (`run`, not
    `generate`, which names no judge setting)."""
    pending = run.pending_generations()
    prompt_chars = sum(len(r.prompt or "".join(m["content"] for m in r.messages)) for r in pending)
    print(
        f"{run.folder}: {counted(len(run.rows), 'sample')}; "
        f"{counted(len(pending), 'generation call')} to {run.config.model_id}, "
        f"about {counted(prompt_chars // 4, 'prompt token', spec=',')} + up to "
        f"{counted(len(pending) * run.config.generation.max_new_tokens, 'new token', spec=',')}"
    )
    if judged:
        print(
            f"  judge calls now pending: {len(run.pending_judge_keys())} (more after generation) to "
            f"{run.config.judge.name if run.config.judge else '-'}, up to "
            f"{counted(run.config.judge_attempts, 'attempt')} each, max "
            f"{counted(run.config.judge_generation.max_new_tokens, 'new token')}"
        )
    for line in power_lines(power, run.config, len(run.rows)):
        print(line)


def command_judge(args: argparse.Namespace) -> int:
    run, unscored = judge_folder(args.folder, judge_changes(args), args.force)
    print(f"judged; unscored judgements written: {unscored}")
    return report_failures([run] if run.failed else [])


def judge_changes(args: argparse.Namespace) -> dict[str, Any]:
    """The judge settings `longform-eval judge FOLDER` changes (the API's `judge_changes`); the rest stays as stored."""
    stored = RunConfig.model_validate(read_config(args.folder))
    given = settings_of(args, judge=args.judge)
    given.pop("force", None)
    return api_judge_changes(stored, args.judge, settings_from(given, JUDGE_SETTINGS), set(given))


def command_score(args: argparse.Namespace) -> int:
    run = score_folder(args.folder)
    print_leaderboard([run.folder])
    return report_pending([pending_calls(run)])


def command_report(args: argparse.Namespace) -> int:
    args.folders, comparisons_out = report_folders(args.folders, args.out)
    pending = checked_runs(args.folders, comparisons_out, rescore=True)  # every file it reads, before any is written
    for folder in args.folders:
        print(write_report(folder))
    print_length_view(args.folders)
    print_pairwise_view(args.folders)
    print_leaderboard(args.folders)
    print_comparison_view(args.folders, comparisons_out)
    print_calibration_view(args.folders)
    return report_pending(pending)


def report_folders(sources: list[str | Path], out: Path | None) -> tuple[list[Path], Path | None]:
    """The local run folders (a Hub run: its local copy; the HF cache stays read-only) and the folder `--out` names
    for comparisons.json (None: the comparison is printed, not written). `--out` with one hf:// run that is one run
    is the folder of its copy, as before; with two or more runs it is where comparisons.json goes."""
    if out is not None and len(sources) == 1 and is_hub_path(sources[0]) and len(hub_runs(str(sources[0]))) == 1:
        return local_runs(sources, out), None
    folders = local_runs(sources)
    if out is not None and len(folders) < 2:
        raise ValueError(
            "--out names the folder for the comparisons of two or more runs, or the local copy of one "
            f"hf://datasets/... run; {counted(len(folders), 'local run')} given"
        )
    return folders, out


def report_pending(folders: list[PendingCalls]) -> int:
    """Scores that leave calls out are not final: say so for each folder, and exit 1 (as `run` does)."""
    for pending in folders:
        for line in pending.lines():
            print(line, file=sys.stderr)
    return 1 if any(pending.count for pending in folders) else 0
