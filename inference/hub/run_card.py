"""The dataset card of a run shared on the Hub: what the run is (benchmark, model, judge, settings, version), its
headline figure with its interval, and its deviations from the paper's settings.

The card is a function of the run alone (no date, no pushing version), so pushing an unchanged run changes no card.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Sequence
from typing import Any

from huggingface_hub import DatasetCardData

from longform_eval.common.plurals import counted
from longform_eval.registry import benchmark_declarations

from ..benchmarks.layouts import field_value
from ..benchmarks.run_scores import RunScores
from ..report.markdown import benchmark_of
from ..runner.config import RunConfig
from .licences import licence_of
from .results_table import results_config, results_section
from .run_info import RunInfo
from .sources import hub_path, join

CARD = "README.md"
MARKER = "<!-- written by `longform-eval push-run`, rewritten on every push: edits here are replaced -->"
FILES_HEADING = "## Files"
FILE_ROW = re.compile(r"^\| `([^`]+)` \|")
RECORDS = {"generations": "generations*.jsonl", "judgements": "judgements*.jsonl", "scores": "scores.json"}
FILE_ROLES = {
    "config.yaml": "everything needed to reproduce the run (dataset and its hash, model, judge, settings, version)",
    "generations*.jsonl": "one record per response: prompt hash, response, tokens, finish reason, timing",
    "judgements*.jsonl": "one record per judge call: the raw judge completion, the parsed verdict or why unscored",
    "failures.jsonl": "calls that failed before a later try succeeded",
    "scores.json": "the figures, per group and per prompt, with their intervals",
    "report.md": "the report: tables, intervals, deviations, published figures beside this run's",
    "comparisons.json": "paired comparisons with the runs reported beside it",
    "timings.json": "wall time per stage",
    "*.png": "the report's plots",
}


def is_our_card(text: str) -> bool:
    return MARKER in text


def listed_files(card: str) -> list[str]:
    """The repo paths the Files table of a run's card lists: the files the push that wrote the card uploaded."""
    listed, inside = [], False
    for line in card.splitlines():
        if line.startswith("## "):
            inside = line == FILES_HEADING
        elif inside and (row := FILE_ROW.match(line)):
            listed.append(row[1])
    return listed


def run_card(repo_id: str, run: RunInfo) -> str:
    """The card of one run; at the repo's root (`run.path` "") it also declares the records as dataset configs."""
    return with_header(card_data([run] if not run.path else [], [run]), run_body(repo_id, run))


def repo_card(repo_id: str, runs: Sequence[RunInfo], with_results: bool = True) -> str:
    """The root card: the root's own run if it holds one, a list of the runs in folders, and (`with_results`) the
    results table (`results.jsonl`, one row per run) as the default dataset config."""
    root = next((run for run in runs if not run.path), None)
    others = sorted((run for run in runs if run.path), key=lambda run: run.path)
    body = run_body(repo_id, root) if root else index_intro(repo_id)
    if others:
        body += ["", "## Runs in this repo" if not root else "## Other runs in this repo", "", *runs_table(others)]
    if with_results and runs:
        body += ["", *results_section(repo_id, config_name((root or others[0]).path, "scores"))]
    return with_header(card_data(runs, runs, with_results), body)


def with_header(data: DatasetCardData, body: list[str]) -> str:
    return f"---\n{data.to_yaml()}\n---\n{MARKER}\n\n" + "\n".join(body).rstrip("\n") + "\n"


def card_data(with_configs: Sequence[RunInfo], runs: Sequence[RunInfo], with_results: bool = False) -> DatasetCardData:
    """License `other` (the responses and verdicts are the model's and judge's outputs), tags, the results table as
    the default config, and one dataset config per record log and per scores.json, so that
    `load_dataset(REPO, "generations")` and the viewer read them."""
    benchmarks = sorted({run.scores.benchmark for run in runs})
    names = ", ".join(sorted({run.benchmark for run in runs}))
    configs = [results_config()] if with_results else []
    return DatasetCardData(
        license="other",
        pretty_name=f"longform-eval run: {names}" if len(runs) == 1 else f"longform-eval runs: {names}",
        tags=["longform-eval", "evaluation", "llm-as-a-judge", *benchmarks],
        configs=configs + [config for run in with_configs for config in record_configs(run)] or None,
    )


def config_name(path: str, name: str) -> str:
    """The dataset config of a run's record log (or scores.json): `name` for the root's run, `runs-x-name` for
    runs/x's."""
    return f"{path.replace('/', '-')}-{name}" if path else name


def record_configs(run: RunInfo) -> list[dict[str, Any]]:
    return [
        {"config_name": config_name(run.path, name), "data_files": [{"split": "test", "path": join(run.path, pattern)}]}
        for name, pattern in RECORDS.items()
        if any(fnmatch.fnmatchcase(file, pattern) for file in run.files)
    ]


def run_body(repo_id: str, run: RunInfo) -> list[str]:
    config = RunConfig.model_validate(run.config)
    figure, scale, details = run.headline()
    scores = run.scores
    source = hub_path(repo_id, run.path)
    return [
        f"# {run.benchmark}: {scores.model}",
        "",
        f"A run folder of `longform-eval` {config.package_version or '(version not recorded)'}: the responses "
        f"of `{scores.model}` to the prompts of the `{run.benchmark}` benchmark, judged by `{scores.judge}`, "
        "and the figures computed from the verdicts. `report.md` is the full report.",
        "",
        f"**Headline: {figure}** (scale {scale}{'; ' + details if details.strip() else ''}).",
        "",
        f"In brackets: the 95% interval ({scores.interval_method or 'method not recorded'}). "
        f"Samples: {scores.n_samples}; scored: {count(scores, 'n_scored', '-')}; "
        f"unscored: {count(scores, 'n_unscored', 0)}.",
        "",
        *deviation_lines(scores.deviations),
        "## The run",
        "",
        "| | |",
        "|---|---|",
        *[f"| {name} | {cell(value)} |" for name, value in settings_rows(config)],
        "",
        FILES_HEADING,
        "",
        "| file | what it holds |",
        "|---|---|",
        *[f"| `{join(run.path, name)}` | {role_of(name)} |" for name in run.files],
        "",
        "## Reading it back",
        "",
        "```",
        f"longform-eval report {source}",
        f"longform-eval space --runs {source}",
        "```",
        "",
        f"The record logs load with `datasets`: `load_dataset({repo_id!r}, {record_configs(run)[0]['config_name']!r})`."
        if not run.path and record_configs(run)
        else "The record logs are JSON lines, one record a line.",
        "",
        "## Licence",
        "",
        "The responses are the model's outputs and the verdicts the judge's: their terms are those of the model and "
        "of the judge. The prompts are not stored (only their hashes), though responses and verdicts may quote them; "
        f"they come from {dataset_terms(run)}.",
    ]


def restricted_note(run: RunInfo) -> str | None:
    """A warning when the benchmark's dataset is not under an open licence (its prompts may be quoted)."""
    builder = dataset_of(run.scores)
    if builder is None or licence_of(builder).is_open:
        return None
    return (
        f"the prompts come from the `{builder}` dataset ({licence_of(builder).terms()}); responses and verdicts "
        "may quote them: check its terms before sharing the run publicly (--private keeps a new repo private)"
    )


def count(scores: RunScores, name: str, none: Any) -> Any:
    """The benchmark's count `name` (`n_scored`, `n_unscored`), `none` where its figures have none."""
    found = field_value(scores.figures, name)
    return none if found is None else found


def dataset_of(scores: RunScores) -> str | None:
    """The dataset the run's benchmark reads its rows from, as the registry declares it."""
    declarations = benchmark_declarations()
    name = benchmark_of(scores).name
    return declarations[name].dataset_name if name in declarations else None


def dataset_terms(run: RunInfo) -> str:
    """The benchmark's dataset and its licence terms, as its own card states them."""
    builder = dataset_of(run.scores)
    if builder is None:
        return "the benchmark's dataset, under its own licence (see its card)"
    return f"the `{builder}` dataset, {licence_of(builder).terms()}"


def deviation_lines(deviations: list[str]) -> list[str]:
    if not deviations:
        return ["Deviations from the paper's settings: none.", ""]
    return [
        "**Deviations from the paper's settings** (scores are not comparable with the paper):",
        "",
        *[f"- {deviation}" for deviation in deviations],
        "",
    ]


def settings_rows(config: RunConfig) -> list[tuple[str, Any]]:
    args = ", ".join(f"{k}={v}" for k, v in config.benchmark_args.items())
    selection = ", ".join(f"{k} {v}" for k, v in config.selection.items() if v not in (None, False, [], {}))
    return [
        ("benchmark", f"{config.benchmark}, config {config.benchmark_config}" + (f" ({args})" if args else "")),
        ("dataset", f"{config.dataset or 'built by longform-eval'}" + revision(config.dataset_revision)),
        ("dataset hash", config.dataset_hash or "-"),
        ("prompts", selection or "all"),
        ("model", config.model_id),
        ("generation settings", sampling(config.generation.model_dump())),
        ("judge", config.judge.name if config.judge else "-"),
        ("judge settings", judge_settings(config)),
        ("longform-eval version", config.package_version or "-"),
    ]


def revision(value: str | None) -> str:
    return f" @ {value}" if value else ""


def sampling(settings: dict[str, Any]) -> str:
    """`max_new_tokens 512, temperature 0.8, stop ['###']`: the settings that are set."""
    shown = {k: list(v) if isinstance(v, tuple) else v for k, v in settings.items()}
    return ", ".join(f"{k} {v}" for k, v in shown.items() if v is not None and v != [] and v != {})


def judge_settings(config: RunConfig) -> str:
    extras = [
        f"{counted(config.judge_samples, 'sample')} per call",
        f"up to {counted(config.judge_attempts, 'attempt')}" if config.judge_attempts > 1 else "1 attempt",
        f"parser {config.parser}",
        "constrained to the verdict schema" if config.constrained_judge else "unconstrained",
    ]
    return ", ".join([sampling(config.judge_generation.model_dump()), *extras])


def cell(value: Any) -> str:
    return str(value).replace("|", "\\|").replace("\n", " ")


def role_of(name: str) -> str:
    return next((role for pattern, role in FILE_ROLES.items() if fnmatch.fnmatchcase(name, pattern)), "")


def index_intro(repo_id: str) -> list[str]:
    return [
        "# Evaluation runs made with longform-eval",
        "",
        f"Run folders of `longform-eval`, one per folder below, each with its own card (`FOLDER/README.md`) "
        f"and report (`FOLDER/report.md`). `longform-eval report {hub_path(repo_id)}` reports them all, with the "
        "paired comparisons of the runs that can be compared (benchmark config, prompts, judge); "
        f"`longform-eval report {hub_path(repo_id, 'FOLDER')}` reports one.",
    ]


def runs_table(runs: Sequence[RunInfo]) -> list[str]:
    rows = []
    for run in runs:
        figure, scale, _ = run.headline()
        rows.append(
            f"| [`{run.path}`]({run.path}/README.md) | {cell(run.benchmark)} | {cell(run.scores.model)} | "
            f"{cell(run.scores.judge)} | {cell(figure)} | {cell(scale)} |"
        )
    return ["| run | benchmark | model | judge | headline [95% interval] | scale |", "|---|---|---|---|---|---|", *rows]


__all__ = ["CARD", "RunInfo", "is_our_card", "listed_files", "repo_card", "restricted_note", "run_card"]
