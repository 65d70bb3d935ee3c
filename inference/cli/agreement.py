"""`longform-eval judge-agreement`: a judge against PandaLM's human A/B labels (see `judge_agreement`); its options are
`agreement_flags.py`'s."""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

from longform_eval.common.atomic import write_text_atomic
from longform_eval.common.plurals import counted
from longform_eval.metric.pairwise.judge import load_pairwise_prompt

from ..api.config_build import backend_spec, constrained_judge
from ..benchmarks.base import sampling_config
from ..config import GenerationConfig
from ..report.sections.tables import fmt_figure, markdown_table
from ..runner.folder import check_writable_folder
from ..runner.judge_agreement import (
    AgreementJudge,
    agreement_figures,
    item_calls,
    pandalm_folder,
    parsed,
    read_items,
    released_verdicts,
)
from ..runner.lock import lock_run_folder
from .args import flag_options

AGREEMENT_FILES = ("judgements.jsonl", "agreement.json")  # an earlier judge-agreement folder holds one of them


def judge_settings(args: argparse.Namespace) -> tuple[GenerationConfig, int]:
    judge = load_pairwise_prompt().judge
    settings = sampling_config(judge, args.judge_max_new_tokens or judge.max_tokens)
    return settings, args.judge_attempts or judge.attempts


def command_agreement(args: argparse.Namespace, default_out: Path) -> int:
    """Judge the items, write agreement.json and agreement.md into `--out` (else `default_out`/<judge>)."""
    if args.judge is None:
        raise ValueError("pass --judge BACKEND:MODEL, the judge to calibrate")
    judge = backend_spec(args.judge, flag_options(args.judge, args.judge_arg, args.judge_config, "judge"), "judge")
    folder = pandalm_folder(args.source)
    items = read_items(folder)[: args.limit]
    out = args.out or default_out / re.sub(r"[^A-Za-z0-9_.-]+", "-", judge.name).strip("-")
    check_writable_folder(out, "a judge-agreement folder", AGREEMENT_FILES)  # never over someone else's files
    lock_run_folder(out)  # one writer of judgements.jsonl at a time
    settings, attempts = judge_settings(args)
    constrained = constrained_judge(None if args.constrained_judge is None else args.constrained_judge == "on", judge)
    runner = AgreementJudge(out, judge, settings, attempts, constrained)
    calls = item_calls(items, args.mode)
    failed = runner.run(calls)
    figures = agreement_figures(items, parsed(calls, runner.completions()), args.mode, released_verdicts(folder))
    document = {"judge": judge.name, "settings": settings.model_dump(mode="json"), "source": str(folder), **figures}
    write_text_atomic(out / "agreement.json", json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    lines = agreement_lines(document)
    write_text_atomic(out / "agreement.md", "\n".join(lines) + "\n")
    print("\n".join(lines))
    print(f"\n{out / 'agreement.md'}")
    if failed:
        print(failure_lines(runner, failed, len(calls)), file=sys.stderr)
        return 1
    return 0


def failure_lines(runner: AgreementJudge, failed: int, calls: int) -> str:
    """Why calls failed (the commonest errors), where they are logged, and what to do; when every call failed, that
    the judge has no figures."""
    reasons = "; ".join(f"{error} ({count}x)" for error, count in runner.failed.most_common(3))
    where = runner.failures.path
    if not runner.completions():
        return (
            f"every judge call failed ({failed} of {calls}): {reasons}. The judge has no agreement figures (only the "
            f"released judges'); the failures are logged in {where}. Fix the judge and run the same command again."
        )
    return (
        f"{counted(failed, 'judge call')} failed and {'stays' if failed == 1 else 'stay'} pending: {reasons} (logged "
        f"in {where}); run the same command again to retry them"
    )


def agreement_row(name: str, figures: dict[str, Any]) -> tuple:
    """A judge's row: agreement and Cohen's kappa, each with its 95% interval over items (or why it has none), and the
    label set both are on."""
    rates = (figure_with_note(figures, key) for key in ("agreement", "cohen_kappa"))
    return (name, figures["n"], *rates, figures["label_set"], figures["n_unscored"])


def figure_with_note(figures: dict[str, Any], key: str) -> str:
    """`0.716 [0.687, 0.743]`, or `1.000 [no interval: why]` where the results file says why it has none."""
    text = fmt_figure(figures, key, figures[key], digits=3)
    note = (figures.get("interval_notes") or {}).get(key)
    return text.replace("[no interval]", f"[no interval: {note}]") if note else text


def figure(document: dict[str, Any], name: str) -> str:
    return fmt_figure(document, name, document[name], digits=3)


def agreement_lines(document: dict[str, Any]) -> list[str]:
    """agreement.md: the judge beside the released judges, its orders, flips, and the confusion matrix."""
    judge = document["judge"]
    combined = "both orders combined" if document["mode"] == "pairwise" else "single scores mapped"
    rows = [agreement_row(f"{judge} ({combined})", document["agreement"])]
    rows += [agreement_row(f"{judge} ({order})", figures) for order, figures in document.get("orders", {}).items()]
    rows += [agreement_row(name, figures) for name, figures in document["released"].items()]
    lines = [
        f"# Judge agreement with humans: {judge}",
        "",
        f"PandaLM test set ({document['source']}): {counted(document['n_items'], 'item')}, "
        f"{document['n_human_majority']} with a human majority (2 or 3 of the 3 annotators agree). Labels compared on "
        "three classes: A better, B better, tie (the judge's equally good and equally bad are both a tie). Judge mode: "
        f"`{document['mode']}`.",
        "",
        *markdown_table(
            ("judge", "items", "agreement [95% CI]", "Cohen's kappa [95% CI]", "label set", "unscored"), rows
        ),
        "",
        f"Intervals: {document['interval_method']}.",
    ]
    if "flip_rate" in document:
        lines += [
            "",
            f"Flip rate (the decision changes when the responses swap): {figure(document, 'flip_rate')}; share of "
            f"decisive verdicts that chose the response shown first: {figure(document, 'first_position_preference')} "
            "(0.5: no position bias).",
        ]
    labels = document["agreement"]["labels"]
    matrix = document["agreement"]["confusion"]
    lines += [
        "",
        "Confusion matrix (rows: human majority; columns: the judge, orders combined):",
        "",
        *markdown_table(
            ("human \\ judge", *labels), [(label, *row) for label, row in zip(labels, matrix, strict=True)]
        ),
    ]
    return lines
