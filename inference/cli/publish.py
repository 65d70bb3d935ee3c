"""`longform-eval publish --org ORG [--dry-run | --stage DIR] [--with-restricted] [--source DIR] [--private]
[--space-name NAME] [--arena-runs ORG/NAME[/PATH] ...] [--votes-repo ORG/NAME] [--space-token-from-env VARIABLE]`."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING

from longform_eval.common.arg_types import source_folder
from longform_eval.common.plurals import counted
from longform_eval.dataset_builder.repo_ids import checked_repo_id

from ..hub.space_settings import DEFAULT_SPACE_NAME, TOKEN_SECRET, arena_settings, settings_lines
from ..secret_values import register_secret

if TYPE_CHECKING:
    from ..hub.release_plan import Release


def add_command(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "publish",
        help="publish a release to the Hub: the datasets, one Space per evaluate metric, and the arena Space",
        description="Create or update, in one go, the dataset repos ORG/<dataset> (openly licensed ones only, unless "
        "--with-restricted), one Space per evaluate metric (evaluate.load('ORG/<metric>')) and the arena Space, "
        "every requirements file pinned to this version. Unchanged files are not uploaded; a repo with nothing "
        "changed gets no commit.",
    )
    parser.add_argument("--org", required=True, help="Hub user or organisation to publish to")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--dry-run", action="store_true", help="list every repo and file it would write, and the refused datasets"
    )
    mode.add_argument(
        "--stage",
        type=Path,
        metavar="DIR",
        help="write the repos to DIR/datasets/ORG/NAME and DIR/spaces/ORG/NAME instead of uploading (DIR: new, "
        "empty, or an earlier --stage; default: none, the repos are uploaded)",
    )
    parser.add_argument(
        "--with-restricted",
        action="store_true",
        help="also publish LongGenBench and TencentLLMEval (no open licence: research use only), as private repos",
    )
    parser.add_argument(
        "--source",
        type=source_folder,
        metavar="DIR",
        help="folder with one folder of source files per dataset (hellobench/, longbench_write/, ...; "
        "default: where `build` looks)",
    )
    parser.add_argument("--private", action="store_true", help="make every repo private")
    parser.add_argument("--space-name", default=DEFAULT_SPACE_NAME, help="name of the arena Space (ORG/NAME)")
    add_arena_options(parser)
    parser.set_defaults(handler=run_publish)


def add_arena_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--arena-runs",
        nargs="+",
        metavar="ORG/NAME[/PATH]",
        default=[],
        help="results repos (shared with push-run) whose runs the arena Space pairs, set as its LONGFORM_EVAL_RUNS "
        "(default: the released HelloBench responses of ORG/hellobench, as LONGFORM_EVAL_RELEASED)",
    )
    parser.add_argument(
        "--votes-repo",
        metavar="ORG/NAME",
        help="dataset repo where the arena Space keeps its votes, set as its LONGFORM_EVAL_VOTES_REPO (default: "
        "ORG/<space name>-votes; created private if missing, refused if public)",
    )
    parser.add_argument(
        "--space-token-from-env",
        metavar="VARIABLE",
        help=f"set the arena Space's secret {TOKEN_SECRET} to the value of this environment variable (a token that "
        "can write the votes repo; never printed); without it, set the secret in the Space's settings yourself",
    )


def run_publish(args: argparse.Namespace) -> int:
    # imported when the command runs: --help stays fast
    from longform_eval.dataset_builder.hub import HubUnavailableError, offline_message

    from ..hub.publish import publish_release
    from ..hub.release import assemble_release
    from ..hub.release_stage import stage_release

    checked_repo_id(f"{args.org}/{args.space_name}", "--org ORG with --space-name NAME")  # the other names are ours
    uploading = not (args.dry_run or args.stage)
    message = offline_message(f"publish to {args.org}") if uploading else None
    if message:  # before building anything
        raise HubUnavailableError(message)
    arena = arena_settings(args.org, args.space_name, args.arena_runs, args.votes_repo)
    secrets = space_secrets(args.space_token_from_env)
    release = assemble_release(
        args.org,
        source=Path(args.source) if args.source else None,
        with_restricted=args.with_restricted,
        private=args.private,
        space_name=args.space_name,
        arena=arena,
    )
    sources = {TOKEN_SECRET: args.space_token_from_env} if args.space_token_from_env else {}
    if args.dry_run:
        print(listing(release, "dry run: nothing staged or uploaded, no Hub call", sources))
    elif args.stage:
        folder = stage_release(release, args.stage)
        print(listing(release, f"staged in {folder}, nothing uploaded", sources))
    else:
        print(summary(release))
        publish_release(release, secret_values=secrets)
        print(f"requirements pin longform-eval=={release.version}: that version must be on the package index")
    return 0


def summary(release: Release) -> str:
    lines = [f"longform-eval {release.version} release for {release.org}: {counted(len(release.repos), 'repo')}"]
    return "\n".join(lines + refused_lines(release))


def space_secrets(variable: str | None) -> dict[str, str]:
    """The arena Space's secret from the environment variable `variable` (checked before anything is built).

    Raises:
        ValueError: the variable is named but not set (or empty).
    """
    if variable is None:
        return {}
    value = os.environ.get(variable, "").strip()
    if not value:
        raise ValueError(f"--space-token-from-env {variable}: the environment variable {variable} is not set")
    register_secret(value)  # never printed, written or uploaded in a file, in any spelling
    return {TOKEN_SECRET: value}


def listing(release: Release, mode: str, secrets_from: dict[str, str] | None = None) -> str:
    """Every repo (type, id, visibility, role) with its files (path, bytes) and a Space's settings, then the refused
    datasets; `secrets_from`: the environment variables a Space's secrets are set from."""
    repos = counted(len(release.repos), "repo")
    lines = [f"longform-eval {release.version} release for {release.org}: {repos} ({mode})"]
    for repo in release.repos:
        visibility = "private" if repo.private else "public"
        lines.append(f"{repo.repo_type} {repo.repo_id} ({visibility}, {repo.role}, {counted(len(repo.files), 'file')})")
        width = max(len(path) for path in repo.files)
        lines += [
            f"  {path:<{width}}  {counted(len(data), 'byte', spec='>12,')}" for path, data in sorted(repo.files.items())
        ]
        lines += settings_lines(repo.settings, secrets_from) if repo.settings else []
    return "\n".join(lines + refused_lines(release))


def refused_lines(release: Release) -> list[str]:
    return [f"refused: dataset {refused.repo_id}: {refused.reason}" for refused in release.refused]
