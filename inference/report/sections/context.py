"""Figures beside a run's own: published models scored from their released verdicts, and the stored agreement of
the embedded judge with those verdicts.

A benchmark offers them through `Benchmark.context` (HelloBench does); report.md and the leaderboard show them for
any benchmark, always labelled with the judge that produced them and the prompts they cover. Nothing here calls a
model or the network: the released files are read from the local source folder the runner builds its dataset from,
and when they are not there the context says so in one line.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Set
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from longform_eval.common.bounded_json import loads_json
from longform_eval.common.guarded import SOURCE, iter_lines
from longform_eval.dataset_builder.hellobench import NAME as HELLOBENCH
from longform_eval.dataset_builder.hellobench import TASKS, read_rows, task_file
from longform_eval.dataset_builder.sources import SOURCE_ENV, local_candidates
from longform_eval.metric.helloeval.parser import parse_checklist_verdict
from longform_eval.metric.helloeval.scoring import JudgedRow, first_verdict_per_known_id, score_rows, scored
from longform_eval.metric.helloeval.weights import flat_weights, task_of_subcategory
from longform_eval.metric.uncertainty.unit_intervals import FigureSource, figure_intervals
from longform_eval.metric.uncertainty.units import UnitTable

from ...benchmarks.layouts import HelloBenchLayout
from ...benchmarks.run_scores import figures_of
from ...yaml_files import options_file
from .tables import NO_INTERVALS, Bounds, fmt, fmt_interval, markdown_table

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable


RELEASED_JUDGE = "GPT-4o (released verdicts)"
EMBEDDED_JUDGE = "local:default"  # the judge the package ships, whose agreement bench/judge_agreement.py measures
JUDGEMENTS = Path("judgements") / "main_exp"
AGREEMENT_FILE = "embedded_judge_agreement.json"
MEASURE_COMMAND = "python bench/judge_agreement.py --store"
AGREEMENT_KEYS = (
    "judge",
    "constrained",
    "reference",
    "n_rows",
    "n_unscored",
    "item_exact_agreement",
    "item_mean_abs_diff",
    "row_spearman",
    "row_pearson",
    "date",
    "command",
)


class UnitSource(FigureSource, Protocol):
    """What a published row's interval needs of a benchmark: its unit table and its figures."""

    def unit_table(self, figures: Any) -> UnitTable | None: ...


@dataclass(frozen=True)
class ContextRow:
    """One published figure: who produced it, who judged it, which prompts it covers."""

    model: str
    judge: str
    prompts: str
    score: float | None
    scale: str | None
    details: str
    interval: Bounds = NO_INTERVALS  # its 95% interval ({"low", "high", "se", "n"}; None: none can be computed)


@dataclass
class RunContext:
    """Published rows and sentences about them (what they are, what is missing), the model that judged them, and the
    stored agreement of a judge with their verdicts.

    The terminal shows the rows and their notes only beside a run judged by `judge_model` (the published figures are
    comparable with its figure), and `agreement` only beside a run judged by the judge it measures
    (`agreement_applies`); report.md shows them all, labelled."""

    rows: list[ContextRow] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    judge_model: str | None = None  # the model whose verdicts the rows were scored from (the paper's judge)
    agreement: str | None = None  # `agreement_line()`: how far the embedded (or measured) judge agrees with them


@dataclass(frozen=True)
class Published:
    """A released model's HelloEval figures (as a run's scores.json has them: `HelloBenchLayout`) over some prompts."""

    model: str
    prompts: str
    figures: HelloBenchLayout


def context_lines(context: RunContext, run_judge: str | None) -> list[str]:
    """The report.md section: a table of the published rows, then the notes."""
    lines = ["## Beside this run: published figures (another judge)", ""]
    whose = f"Not this run's judge (`{run_judge}`)" if run_judge else "This run has no judge"
    if context.rows:
        lines += [
            f"{whose}: these rows were scored by this package from another judge's verdicts, so they are context, "
            "not a ranking. `same` rows cover exactly this run's prompts; the others cover the whole benchmark. "
            "Each row's 95% interval is computed as a run's own is, over the prompts that row covers.",
            "",
            *markdown_table(
                ("model", "judge", "prompts", "score [95% CI]", "scale", "details"),
                [
                    (r.model, r.judge, r.prompts, fmt_interval(r.score, r.interval), r.scale or "-", r.details)
                    for r in context.rows
                ],
            ),
            "",
        ]
    mine = context.agreement and agreement_applies(run_judge)  # the stored agreement is of one judge: said beside it
    notes = context.notes + ([context.agreement] if mine else [])
    return lines + [line for note in notes for line in ("", note)][1:]


# ----- where the released files are ---------------------------------------------------------------------------
def configured_source(folder: Path) -> str | None:
    """The `--source` a run folder was made with (config.yaml), if any."""
    path = Path(folder) / "config.yaml"
    return options_file(path, "run settings").get("source") if path.is_file() else None


def released_source(name: str, configured: str | None) -> Path | None:
    """The local source folder the runner builds `name` from (`--source`, else `$LONGFORM_EVAL_SOURCE/<name>`);
    None when there is none. Never downloads."""
    candidates = [Path(configured)] if configured else local_candidates(name)
    return next((path for path in candidates if path.is_dir()), None)


# ----- HelloBench's released verdicts ---------------------------------------------------------------------------
def released_models(source: Path) -> list[str]:
    folder = source / JUDGEMENTS
    return sorted(p.name for p in folder.iterdir() if p.is_dir()) if folder.is_dir() else []


@functools.cache
def released_verdicts(source: Path, model: str) -> tuple[dict[str, Any], ...]:
    """The released verdict records of `model`, task by task, in file order."""
    records = []
    for task in TASKS:
        path = source / JUDGEMENTS / model / f"{task}_results.jsonl.gz"
        records += [loads_json(line) for _, line in iter_lines(path, SOURCE) if line.strip()]
    return tuple(records)


@functools.cache
def main_prompts(source: Path) -> dict[str, tuple[str, int]]:
    """id -> (subcategory, number of checklists) of HelloBench's main prompts."""
    weights = {sub: list(values) for sub, values in flat_weights().items()}
    rows = [row for task in TASKS for row in read_rows(task_file(source, task), task, weights)]
    return {row["id"]: (row["subcategory"], row["num_checklist"]) for row in rows}


def published_scores(
    verdicts: tuple[dict[str, Any], ...], prompts: dict[str, tuple[str, int]], ids: set[str]
) -> dict[str, Any]:
    """HelloEval figures of the released verdicts on the prompts `ids` (duplicates and unknown ids skipped), with
    the per-row records a run's scores.json has (`rows`: id, subcategory, row_score), which its intervals rest on."""
    judged = [
        JudgedRow(record["id"], subcategory, parse_checklist_verdict(record["checklist_wise_evaluation"], size))
        for record in first_verdict_per_known_id(verdicts, ids)
        for subcategory, size in (prompts[record["id"]],)
    ]
    weights = flat_weights()
    figures = score_rows(judged, weights, task_of_subcategory()).to_dict()
    rows = [{"id": r.row_id, "subcategory": r.subcategory, "row_score": scored(r, weights)} for r in judged]
    return figures | {"rows": rows}


def published_interval(benchmark: UnitSource, figures: HelloBenchLayout, name: str) -> dict[str, Any] | None:
    """Figure `name`'s 95% interval over the rows of `figures` (`published_scores`), computed as a run's own is."""
    units = benchmark.unit_table(figures)
    if units is None:
        return None
    figure = benchmark.figures(units)[name]
    found = figure_intervals(benchmark, units, {name: figure})[0][name]
    return None if found is None else found.to_dict()


def released_figures_from(source: Path | None, run_ids: Set[str] | None) -> list[Published] | str:
    """Each released model in `source` over all main prompts and, when `run_ids` is given, over those of them a run
    has; or one sentence saying why there are none."""
    models = released_models(source) if source else []
    if not models:
        where = source or ", ".join(str(p) for p in local_candidates(HELLOBENCH)) or f"--source or ${SOURCE_ENV}"
        return f"Published models: not shown (no released HelloBench verdicts under {where})."
    try:
        prompts = main_prompts(source)
        return [figure for model in models for figure in model_figures(source, model, prompts, run_ids)]
    except (OSError, ValueError, KeyError) as error:
        return f"Published models: not shown (the released verdicts under {source} cannot be read: {error})."


def model_figures(
    source: Path, model: str, prompts: dict[str, tuple[str, int]], run_ids: Set[str] | None
) -> list[Published]:
    verdicts = released_verdicts(source, model)
    figures = lambda ids: figures_of(HelloBenchLayout, published_scores(verdicts, prompts, ids))  # noqa: E731
    whole = figures(set(prompts))
    found = [Published(model, f"all {len(prompts)}: whole benchmark", whole)]
    if run_ids:
        same = run_ids & set(prompts)
        label = f"same {len(same)} as this run" + ("" if same == run_ids else f" (of its {len(run_ids)})")
        found.append(Published(model, label, whole if same == set(prompts) else figures(same)))  # a full run: once
    return found


# ----- the embedded judge's agreement with the released verdicts ----------------------------------------------
def agreement_file() -> Traversable:
    """Where bench/judge_agreement.py stores its measurement (package data; may be absent)."""
    return resources.files("longform_eval.inference").joinpath("data", AGREEMENT_FILE)


def read_agreement() -> dict[str, Any] | str:
    """The stored measurement, or why there is none."""
    path = agreement_file()
    if not path.is_file():
        return f"not measured (`{MEASURE_COMMAND}` measures it)"
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        return f"not readable ({AGREEMENT_FILE}: {error})"
    missing = [key for key in AGREEMENT_KEYS if key not in found] if isinstance(found, dict) else ["all"]
    return f"not readable ({AGREEMENT_FILE} lacks {', '.join(missing)})" if missing else found


def agreement_applies(run_judge: str | None) -> bool:
    """Whether the stored agreement speaks of `run_judge` (BACKEND:MODEL): the judge it measured, the embedded
    `local:default` while none is stored."""
    found = read_agreement()
    return run_judge is not None and run_judge == (found["judge"] if isinstance(found, dict) else EMBEDDED_JUDGE)


def agreement_line() -> str:
    found = read_agreement()
    if isinstance(found, str):
        return f"Agreement of the embedded judge with the released GPT-4o verdicts: {found}."
    return (
        f"Agreement of `{found['judge']}`{' (constrained judging)' if found['constrained'] else ''} with the released "
        f"GPT-4o verdicts on the first {found['n_rows']} released {found['reference']} rows (measured "
        f"{found['date']}): {percent(found['item_exact_agreement'])} of "
        f"checklist items exactly equal, mean absolute difference {fmt(found['item_mean_abs_diff'], 3)} (item "
        f"scores 0..1); row scores Spearman {fmt(found['row_spearman'])}, Pearson {fmt(found['row_pearson'])}; "
        f"unscored {found['n_unscored']} of {found['n_rows']}. Command: `{found['command']}`."
    )


def percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"
