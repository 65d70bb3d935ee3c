"""`longform-eval serve` and `longform-eval import-generations`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from longform_eval.common.arg_types import out_folder, port

from .args import flag_options
from .setting_flags import add_settings_arguments


def add_tool_commands(subparsers: argparse._SubParsersAction) -> None:
    serve = subparsers.add_parser("serve", help="serve a model over an OpenAI-compatible HTTP API")
    serve.add_argument("model", metavar="BACKEND:MODEL", help="the model to serve, e.g. local:default")
    serve.add_argument("--model-arg", action="append", help="backend option KEY=VALUE, repeatable (default: none)")
    serve.add_argument("--model-config", type=Path, help="YAML file of backend options (default: none)")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default: %(default)s, this machine)")
    serve.add_argument("--port", type=port, default=8000, help="port to listen on (default: %(default)s)")
    serve.set_defaults(handler=command_serve)

    imported = subparsers.add_parser("import-generations", help="import released responses into a run folder")
    imported.add_argument(
        "responses",
        type=Path,
        help="a folder of <task>_results.jsonl[.gz] (HelloBench's release layout, e.g. results/generations/main_exp/"
        "gpt4o_0806 in a clone of Quehry/HelloBench) or a JSON Lines file of {id, response}",
    )
    imported.add_argument(
        "--out",
        type=out_folder,
        required=True,
        help="the run folder to write into: a new one, or an earlier import's (ids imported are kept)",
    )
    imported.add_argument(
        "--benchmark", default="hellobench:all", metavar="NAME[:CONFIG]", help="the benchmark the responses answer"
    )
    add_settings_arguments(imported, ("benchmark_args", "dataset", "dataset_revision", "source"))
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
    from ..api.config_build import backend_spec
    from ..backends.serve import ModelServer

    spec = backend_spec(args.model, flag_options(args.model, args.model_arg, args.model_config, "model"))
    ModelServer(spec, args.host, args.port).serve_forever()
    return 0


def command_import(args: argparse.Namespace) -> int:
    from .import_generations import import_generations

    print(import_generations(args).line(), file=sys.stderr)
    return 0
