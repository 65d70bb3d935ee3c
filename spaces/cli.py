"""`longform-eval space`, `longform-eval space-export` and `longform-eval view`, registered through the
`longform_eval.commands` entry point so that the runner's CLI never imports the Space."""

from __future__ import annotations

import argparse
from pathlib import Path

from longform_eval.common.arg_types import dataset_folder_or_repo, not_a_url, port, source_folder
from longform_eval.inference.hub.paths import hub_or_local_path

released_responses = not_a_url("a HelloBench dataset (a Hub repo id or a folder) or a folder of model folders")


def add_commands(subparsers: argparse._SubParsersAction) -> None:
    add_space_commands(subparsers)
    add_view_command(subparsers)
    add_calibrate_command(subparsers)


def add_space_commands(subparsers: argparse._SubParsersAction) -> None:
    """The Space sits above this package; it is imported only when its command runs."""
    space = subparsers.add_parser("space", help="start the Gradio arena / annotation / leaderboard app")
    space.add_argument(
        "--runs",
        type=hub_or_local_path,  # `hf://datasets/ORG/NAME[/PATH]` kept as text: a Path would fold its `//`
        nargs="+",
        metavar="FOLDER",
        help="run folders (of any benchmark), or folders of run folders, whose responses to pair and scores to show; "
        "a run shared on the Hub as hf://datasets/ORG/NAME[/PATH] is downloaded once into the Hugging Face cache "
        "(default: $LONGFORM_EVAL_RUNS, else none; give it or --released)",
    )
    space.add_argument(
        "--released",
        type=released_responses,
        metavar="ORG/NAME|FOLDER",
        help="released HelloBench responses to pair: a HelloBench dataset with the config released_responses (a Hub "
        "repo id such as ORG/hellobench, or a folder built by `build hellobench`), or a folder of model folders "
        "(<model>/<task>_results.jsonl[.gz]) (default: $LONGFORM_EVAL_RELEASED, else none; give it or --runs)",
    )
    space.add_argument(
        "--db",
        type=Path,
        default=Path("votes.sqlite"),
        help="SQLite file of votes: created if missing (or empty); any other database is refused and left as it is",
    )
    space.add_argument(
        "--judge",
        metavar="BACKEND:MODEL",
        help="the LLM judge that also judges each voted pair (default: $LONGFORM_EVAL_JUDGE, else none, no judge)",
    )
    space.add_argument(
        "--judge-arg",
        action="append",
        metavar="KEY=VALUE",
        help="judge backend option KEY=VALUE, repeatable, as for run (default: $LONGFORM_EVAL_JUDGE_ARGS when "
        "neither --judge-arg nor --judge-config is given, else the backend's own)",
    )
    space.add_argument(
        "--judge-config",
        type=Path,
        metavar="FILE",
        help="YAML file of judge backend options, as for run (default: none)",
    )
    space.add_argument(
        "--source",
        type=source_folder,
        help="HelloBench source folder that the prompts of a --released folder of model folders are built from, "
        "without --dataset (default: $LONGFORM_EVAL_SOURCE/hellobench if set, else a download of the pinned "
        "upstream commit)",
    )
    space.add_argument(
        "--dataset",
        type=dataset_folder_or_repo,
        help="HelloBench dataset folder or Hub repo id (default: built from --source)",
    )
    space.add_argument("--host", help="address to listen on (default: $GRADIO_SERVER_NAME, else 127.0.0.1)")
    space.add_argument("--port", type=port, help="port (default: $GRADIO_SERVER_PORT, else gradio's choice from 7860)")
    space.set_defaults(handler=run_space)
    export = subparsers.add_parser("space-export", help="export votes and annotations (CSV, JSONL)")
    export.add_argument(
        "--db",
        type=Path,
        default=Path("votes.sqlite"),
        help="the Space's SQLite file of votes (any other database is refused and left as it is)",
    )
    export.add_argument(
        "--out",
        type=Path,
        required=True,
        help="folder to write: new, empty or an earlier export (anything else is refused)",
    )
    export.add_argument(
        "--push-to",
        metavar="ORG/NAME",
        help="also upload to this Hub dataset repo (created private if missing; a public one is refused; default: "
        "none, the export stays local)",
    )
    export.set_defaults(handler=run_space_export)


def add_view_command(subparsers: argparse._SubParsersAction) -> None:
    view = subparsers.add_parser(
        "view", help="browse run folders' rows: prompts, answers, the judge's verdicts; two runs side by side"
    )
    view.add_argument(
        "runs",
        type=hub_or_local_path,  # `hf://datasets/ORG/NAME[/PATH]` kept as text, as for `space --runs`
        nargs="+",
        metavar="RUN",
        help="run folders (of any benchmark), or folders of run folders, read without writing anything; a run shared "
        "on the Hub as hf://datasets/ORG/NAME[/PATH] is downloaded once into the Hugging Face cache",
    )
    view.add_argument("--host", help="address to listen on (default: $GRADIO_SERVER_NAME, else 127.0.0.1)")
    view.add_argument("--port", type=port, help="port (default: $GRADIO_SERVER_PORT, else gradio's choice from 7860)")
    view.set_defaults(handler=run_view)


def level(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"expected a confidence level between 0 and 1 (e.g. 0.95), got {text!r}")
    return value


def add_calibrate_command(subparsers: argparse._SubParsersAction) -> None:
    calibrate = subparsers.add_parser(
        "calibrate", help="a run's headline figure calibrated by human labels (PPI++): calibrated.json"
    )
    calibrate.add_argument("runs", type=Path, nargs="+", metavar="RUN", help="pairwise or HelloBench run folders")
    calibrate.add_argument(
        "--human",
        type=hub_or_local_path,
        required=True,
        metavar="SOURCE",
        help="the Space's votes database, its export folder (votes.jsonl / annotations.jsonl), a votes repo "
        "hf://datasets/ORG/NAME, or a JSONL of labels (item_id, model_a, model_b, outcome; or row_id, model, "
        "checklist_scores)",
    )
    calibrate.add_argument("--level", type=level, default=0.95, help="confidence level of the intervals (0.95)")
    calibrate.add_argument("--seed", type=int, default=0, help="seed of the agreement's bootstrap intervals (0)")
    calibrate.set_defaults(handler=run_calibrate)


def run_calibrate(args: argparse.Namespace) -> int:
    from longform_eval.spaces.calibrate import run_calibrate as calibrate

    return calibrate(args)


def run_view(args: argparse.Namespace) -> int:
    from longform_eval.spaces.viewer import main as view_main

    view_main({"runs": [str(p) for p in args.runs], "host": args.host, "port": args.port})
    return 0


def run_space(args: argparse.Namespace) -> int:
    from longform_eval.inference.config import options_from
    from longform_eval.spaces.app import main as space_main

    judge_args = options_from(args.judge_arg, args.judge_config, "judge")
    settings = {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()}
    space_main(settings | {"runs": [str(p) for p in args.runs or ()], "judge_args": judge_args or None})
    return 0


def run_space_export(args: argparse.Namespace) -> int:
    from longform_eval.spaces.export import check_export_folder
    from longform_eval.spaces.hub_votes import push_votes_to_hub
    from longform_eval.spaces.storage import NotAVotesDatabase, VoteStore
    from longform_eval.spaces.votes_file import check_votes_file

    if not args.db.exists():
        raise FileNotFoundError(f"--db {args.db}: no such file")
    if not check_votes_file(args.db, f"--db {args.db}"):  # read-only: a foreign database is left as it is
        raise NotAVotesDatabase(f"--db {args.db}: holds no votes (an empty file or database); nothing to export")
    check_export_folder(args.out)  # both before the store opens (and may migrate) the database, and --out is made
    store = VoteStore(args.db)
    for path in store.export(args.out):
        print(path)
    if args.push_to:
        print(push_votes_to_hub(store, args.push_to))
    return 0
