"""`longform-eval push-run RUN --repo ORG/NAME [--path-in-repo P] [--private] [--dry-run]`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from longform_eval.common.arg_types import not_a_url
from longform_eval.common.plurals import counted

from ..hub.paths import hub_path
from ..url_secrets import mask_url_secrets

if TYPE_CHECKING:
    from ..hub.push_run import PushPlan


def add_command(subparsers: argparse._SubParsersAction) -> None:
    push = subparsers.add_parser(
        "push-run",
        help="share a finished run folder as a Hub dataset repo (records, scores, report, plots, a card)",
        description="Upload a finished run folder to a Hub dataset repo, with a dataset card saying what it is; "
        "read it back with `longform-eval report hf://datasets/ORG/NAME[/PATH]`. Unchanged files are not "
        "uploaded again.",
    )
    push.add_argument("folder", type=Path, metavar="RUN", help="a finished run folder (scored and reported)")
    push.add_argument("--repo", required=True, metavar="ORG/NAME", help="the dataset repo")
    push.add_argument(
        "--path-in-repo",
        type=not_a_url("a folder path in the repo"),
        metavar="P",
        help="folder in the repo for this run, e.g. runs/NAME, so that one repo holds several runs (default: root)",
    )
    push.add_argument("--private", action="store_true", help="create the repo private (an existing repo keeps its own)")
    push.add_argument("--dry-run", action="store_true", help="list the files it would upload, and stop")
    push.set_defaults(handler=command_push_run)


def command_push_run(args: argparse.Namespace) -> int:
    from ..hub.push_run import plan_push, push_run  # imported when the command runs: --help stays fast
    from ..hub.run_card import restricted_note

    plan = plan_push(args.folder, args.repo, args.path_in_repo)
    note = restricted_note(plan.run)
    if note:
        print(f"note: {note}", file=sys.stderr)
    if args.dry_run:
        print_plan(plan, args.private)
        return 0
    result = push_run(plan, private=args.private or None)
    for note in result.notes:
        print(f"note: {note}", file=sys.stderr)
    if result.changed:
        print(f"pushed {plan.folder} to {mask_url_secrets(result.url)} (commit {result.commit[:12]})")
    else:
        print(f"unchanged: {plan.repo_id} already holds {plan.folder} byte for byte (commit {result.commit[:12]})")
    print(f"read it back: longform-eval report {hub_path(plan.repo_id, plan.path_in_repo)}")
    return 0


def print_plan(plan: PushPlan, private: bool) -> None:
    """What a push would write (no Hub call is made): each file with its size, and the cards."""
    print(f"dataset repo {plan.repo_id} ({'private' if private else 'public'} if it is created): {plan.run.title}")
    for name in plan.files:
        print(f"  {plan.repo_path(name)}  ({counted(len(plan.data[name]), 'byte', spec=',')})")
    if plan.path_in_repo:
        print(f"  {plan.repo_path('README.md')}  (the run's dataset card)")
        print("  README.md  (the repo's card, listing its runs; left alone if push-run did not write it)")
    else:
        print("  README.md  (the run's dataset card)")
    print("  results.jsonl  (the results table: one row per run in the repo, its default dataset config)")
    print("  (run files an earlier push listed in its card that this run lacks are deleted)")


__all__ = ["add_command"]
