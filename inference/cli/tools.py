"""`longform-eval serve` and `longform-eval import-generations`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from longform_eval.common.arg_types import dataset_folder_or_repo, out_folder, port, source_folder

from .args import backend_spec


def add_tool_commands(subparsers: argparse._SubParsersAction) -> None:
    serve = subparsers.add_parser("serve", help="serve a model over an OpenAI-compatible HTTP API")
    serve.add_argument("model", help="BACKEND:MODEL, e.g. local:default")
    serve.add_argument("--model-arg", action="append", help="backend option KEY=VALUE (repeatable)")
    serve.add_argument("--model-config", type=Path, help="YAML file of backend options")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=port, default=8000)
    serve.set_defaults(handler=command_serve)

    imported = subparsers.add_parser("import-generations", help="import released responses into a run folder")
    imported.add_argument(
        "responses",
        type=Path,
        help="a folder of <task>_results.jsonl[.gz] (HelloBench's release layout, e.g. results/generations/main_exp/"
        "gpt4o_0806 in a clone of Quehry/HelloBench) or a JSON Lines file of {id, response}",
    )
    imported.add_argument("--out", type=out_folder, required=True)
    imported.add_argument("--benchmark", default="hellobench:all", help="NAME[:CONFIG] (default hellobench:all)")
    imported.add_argument("--benchmark-arg", action="append", help="benchmark option KEY=VALUE (repeatable)")
    imported.add_argument(
        "--dataset",
        type=dataset_folder_or_repo,
        help="dataset folder or Hub repo id (default: built from the source files)",
    )
    imported.add_argument("--dataset-revision")
    imported.add_argument("--source", type=source_folder, help="source folder for the default dataset build")
    imported.add_argument(
        "--name",
        help="the model's display name, also recorded as its id imported:NAME (default: the file or folder name)",
    )
    imported.add_argument(
        "--skip-unknown",
        action="store_true",
        help="import the responses whose ids the benchmark has, skip the others (default: an error, nothing written)",
    )
    imported.set_defaults(handler=command_import)


def command_serve(args: argparse.Namespace) -> int:
    from ..backends.serve import ModelServer

    spec = backend_spec(args.model, args.model_arg, args.model_config)
    ModelServer(spec, args.host, args.port).serve_forever()
    return 0


def command_import(args: argparse.Namespace) -> int:
    from .import_generations import import_generations

    print(import_generations(args).line(), file=sys.stderr)
    return 0
