"""`longform-eval fit-weights`."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from rich.console import Console
from rich.table import Table

from longform_eval.dataset_builder.atomic import write_text_atomic
from longform_eval.dataset_builder.hellobench_weights import dump_weights

from .helloeval.fitting import fit_report, fit_weights, read_annotations


def add_commands(subparsers: argparse._SubParsersAction) -> None:
    fit = subparsers.add_parser("fit-weights", help="fit HelloEval checklist weights to human annotations")
    fit.add_argument("annotations", type=Path, help="JSON Lines file of annotations (see the README)")
    fit.add_argument("--out", type=Path, default=Path("fitted_weights.txt"), help="weights file to write")
    fit.add_argument("--report", type=Path, help="also write R^2 / MSE / n per subcategory as JSON")
    fit.set_defaults(handler=run_fit_weights)


def run_fit_weights(args: argparse.Namespace) -> int:
    """Fit and write the weights; k + 1 annotations at least per subcategory of k checklists.

    Bad input raises a SourceError or ValueError naming the file, before anything is written; `longform-eval`'s
    main prints it and exits 2.
    """
    annotations = read_annotations(args.annotations)
    try:
        fits = fit_weights(annotations, overdetermined=True)
    except ValueError as error:
        raise ValueError(f"{args.annotations}: {error}") from error
    dump_weights({sub: list(fit.weights) for sub, fit in fits.items()}, args.out)
    if args.report:
        write_text_atomic(args.report, json.dumps(fit_report(fits), indent=2) + "\n")
    table = Table("subcategory", "n", "R^2", "MSE", "weights (sum 100)")
    for sub, fit in fits.items():
        table.add_row(sub, str(fit.n), f"{fit.r2:.3f}", f"{fit.mse:.3f}", " ".join(f"{w:.2f}" for w in fit.weights))
    Console().print(table)
    print(f"wrote {args.out}")
    return 0
