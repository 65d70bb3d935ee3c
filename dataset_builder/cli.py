"""`longform-eval build` and `longform-eval push`."""

from __future__ import annotations

import argparse
from pathlib import Path

from longform_eval.common.arg_types import source_folder

from .longgenbench_generator import PER_SCENARIO
from .registry import BUILDERS, build
from .repo_ids import card_repo_id


def add_commands(subparsers: argparse._SubParsersAction) -> None:
    builder = subparsers.add_parser("build", help="build a benchmark into a Hub-ready dataset folder")
    builder.add_argument(
        "name", choices=sorted(BUILDERS), metavar="NAME", help=f"the benchmark to build: {', '.join(sorted(BUILDERS))}"
    )
    builder.add_argument(
        "--source",
        type=source_folder,
        help="folder with the upstream files (default: $LONGFORM_EVAL_SOURCE/NAME if set, else a download of the "
        "pinned upstream commit)",
    )
    builder.add_argument("--out", type=Path, help="output folder (default: build/NAME)")
    builder.add_argument(
        "--repo-id",
        type=card_repo_id,
        metavar="ORG/NAME",
        help="the Hub repo the folder is pushed to: the card's code loads ORG/NAME and the metrics ORG/<metric> "
        "(default: the card names the local folder as path/to/NAME)",
    )
    builder.add_argument(
        "--overwrite",
        action="store_true",
        help="also replace an earlier build of another dataset; a folder holding anything a build did not write "
        "(not listed in its .longform-eval-build.json) is never replaced, nor the current directory, the home "
        "folder or a parent of them",
    )
    builder.add_argument(
        "--allow-count-mismatch",
        action="store_true",
        help="build an edited copy whose record counts differ from the published ones; the card lists them",
    )
    builder.add_argument(
        "--weights",
        type=Path,
        help="hellobench: checklist weights file, e.g. from `longform-eval fit-weights` (default: the source's "
        "weighted_scores.txt, the paper's weights)",
    )
    builder.add_argument("--generate", action="store_true", help="longgenbench: add seeded fresh items")
    builder.add_argument("--seed", type=int, default=0, help="longgenbench --generate: random seed")
    builder.add_argument(
        "--per-scenario",
        type=PER_SCENARIO.argument(),
        default=100,
        help=f"longgenbench --generate: items per scenario (default 100, at most {PER_SCENARIO.maximum})",
    )
    builder.set_defaults(handler=run_build)

    push = subparsers.add_parser("push", help="upload a built dataset folder to the Hugging Face Hub")
    push.add_argument("folder", type=Path, help="a dataset folder `longform-eval build` wrote")
    push.add_argument("--repo-id", required=True, metavar="ORG/NAME", help="the Hub dataset repo to upload to")
    push.add_argument(
        "--revision", help="branch to push to, created if missing (default: the repo's default branch, main)"
    )
    push.add_argument(
        "--message", help="commit message (default: 'Upload NAME built by longform-eval', NAME the folder's name)"
    )
    push.add_argument("--private", action="store_true", help="create the repo private (an existing repo keeps its own)")
    push.add_argument("--dry-run", action="store_true", help="list the files that would be uploaded")
    push.set_defaults(handler=run_push)


def run_build(args: argparse.Namespace) -> int:
    options = {}
    if args.name == "hellobench" and args.weights:
        options["weights"] = args.weights
    if args.name == "longgenbench" and args.generate:
        options.update(generate=True, seed=args.seed, per_scenario=args.per_scenario)
    folder = build(
        args.name,
        source=args.source,
        out=args.out,
        overwrite=args.overwrite,
        allow_count_mismatch=args.allow_count_mismatch,
        repo_id=args.repo_id,
        **options,
    )
    print(folder)
    return 0


def run_push(args: argparse.Namespace) -> int:
    from .hub import push_to_hub, upload_plan  # imported when the command runs: --help stays fast

    if args.dry_run:
        print("\n".join(upload_plan(args.folder)))
        return 0
    info = push_to_hub(
        args.folder, args.repo_id, revision=args.revision, commit_message=args.message, private=args.private or None
    )
    print(info)
    return 0
