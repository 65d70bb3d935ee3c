"""`longform-eval import-generations`: the flags mapped onto the Python API's `import_generations` (its logic and
checks are in inference/api/imports.py); a refused response file keeps its one-line message."""

from __future__ import annotations

import argparse

from ..api.imports import ImportSummary, import_responses
from .args import settings_of

IMPORT_FLAGS = ("benchmark_args", "dataset", "dataset_revision", "source", "name")


def import_generations(args: argparse.Namespace) -> ImportSummary:
    """Released responses -> generations.jsonl of a run without a model; ids already imported are kept as they are."""
    settings = {key: value for key, value in settings_of(args).items() if key in IMPORT_FLAGS}
    return import_responses(args.responses, args.out, args.benchmark, settings, args.skip_unknown)


__all__ = ["ImportSummary", "import_generations"]
