"""`longform-eval fit-weights`."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from longform_eval.common.atomic import write_text_atomic
from longform_eval.common.guarded import DOCUMENT, read_cache_json
from longform_eval.common.owned import check_new_or_ours, starts_with

from ..scrubbed_output import HarmlessConsole

WEIGHTS_HEADER = "# longform-eval fit-weights: checklist weights fitted to human annotations\n"
REPORT_FIELDS = {"n", "r2", "mse", "weights"}
OUR_WEIGHTS = "the weights files it writes start with the line '# longform-eval fit-weights'"
OUR_REPORT = "the reports it writes hold only {subcategory: {n, r2, mse, weights}}"


def add_commands(subparsers: argparse._SubParsersAction) -> None:
    fit = subparsers.add_parser(
        "fit-weights",
        help="fit HelloEval checklist weights to human annotations",
        description=f"An existing --out or --report file is overwritten only if fit-weights wrote it: {OUR_WEIGHTS}; "
        f"{OUR_REPORT}.",
    )
    fit.add_argument(
        "annotations", type=Path, help="JSON Lines file of annotations (see docs/benchmarks-and-scoring.md)"
    )
    fit.add_argument("--out", type=Path, default=Path("fitted_weights.txt"), help="weights file to write")
    fit.add_argument(
        "--report",
        type=Path,
        help="also write R^2 / MSE / n per subcategory as JSON to this file (default: none, they are only printed)",
    )
    fit.set_defaults(handler=run_fit_weights)


def run_fit_weights(args: argparse.Namespace) -> int:
    """Fit and write the weights; k + 1 annotations at least per subcategory of k checklists.

    Bad input raises a SourceError or ValueError naming the file, and an existing output that fit-weights did not
    write an OutputFileError, before anything is written; `longform-eval`'s main prints it and exits 2.
    """
    from rich.markup import escape
    from rich.table import Table

    from longform_eval.dataset_builder.hellobench_weights import dump_weights
    from longform_eval.metric.helloeval.fitting import fit_report, fit_weights, read_annotations

    check_outputs(args.out, args.report)
    annotations = read_annotations(args.annotations)
    try:
        fits = fit_weights(annotations, overdetermined=True)
    except ValueError as error:
        raise ValueError(f"{args.annotations}: {error}") from error
    dump_weights({sub: list(fit.weights) for sub, fit in fits.items()}, args.out, header=WEIGHTS_HEADER)
    if args.report:
        write_text_atomic(args.report, json.dumps(fit_report(fits), indent=2) + "\n")
    table = Table("subcategory", "n", "R^2", "MSE", "weights (sum 100)")
    for sub, fit in fits.items():
        table.add_row(
            escape(sub), str(fit.n), f"{fit.r2:.3f}", f"{fit.mse:.3f}", " ".join(f"{w:.2f}" for w in fit.weights)
        )
    HarmlessConsole().print(table)
    print(f"wrote {args.out}")
    return 0


def check_outputs(out: Path, report: Path | None) -> None:
    """Refuse outputs that would overwrite a file fit-weights did not write, or each other."""
    if report is not None and report.resolve() == out.resolve():
        raise ValueError(f"--report {report}: the same file as --out; give two different files")
    check_new_or_ours(out, "--out", lambda path: starts_with(path, WEIGHTS_HEADER.encode()), OUR_WEIGHTS)
    if report is not None:
        check_new_or_ours(report, "--report", is_fit_report, OUR_REPORT)


def is_fit_report(path: Path) -> bool:
    """Whether `path` holds a report `fit-weights` writes: a non-empty {subcategory: {n, r2, mse, weights}}."""
    report = read_cache_json(path, DOCUMENT)  # None: not a regular file, too large, not JSON within bounds
    return (
        isinstance(report, dict)
        and bool(report)
        and all(isinstance(fit, dict) and set(fit) == REPORT_FIELDS for fit in report.values())
    )
