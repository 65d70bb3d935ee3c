"""scores.json of a run: the benchmark's figures, the run's counts, and every deviation from the paper."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from longform_eval.common.atomic import write_text_atomic
from longform_eval.metric import Unscored

from ..benchmarks.layouts import Figures, Layout, figures_document
from ..benchmarks.run_scores import RunScores, ScoresInvalid
from ..benchmarks.scores_json import run_scores
from ..config import ModelSpec
from ..progress import stage_progress
from .config import RunConfig
from .inputs import baseline_folder, records_hash
from .judge_samples import verdicts_by_sample
from .schema import JudgementRecord, ScoreReport
from .state import RunState

SCORES_FILE = "scores.json"


def verdict_of(record) -> Any:
    return Unscored(record.unscored_reason or "unscored") if record.verdict is None else record.verdict


def sample_scores(run: RunState, judgements: dict[str, JudgementRecord] | None = None) -> list[Layout]:
    """The benchmark's figures once per judge sample (sample 0 first), each from that sample's verdicts
    (`judgements`: the run's current ones, when the caller has read them already), typed as its `scores_layout`."""
    responses = {sample_id: text for sample_id, (text, _) in run.responses().items()}
    derive_ahead(run, [text for sample_id, text in responses.items() if sample_id in run.by_id])
    judgements = run.current_judgements() if judgements is None else judgements
    verdicts = verdicts_by_sample({k: verdict_of(j) for k, j in judgements.items()}, run.config.judge_samples)
    return [typed(run, run.benchmark.score(run.rows, responses, sample)) for sample in verdicts]


def typed(run: RunState, figures: Any) -> Layout:
    """What `Benchmark.score` returned as its layout (`scores_layout`, `Figures` where it declares none): a model of
    another class or a plug-in's JSON object is read as the built-ins' figures are; a ScoresInvalid naming the run's
    scores.json if it is neither or does not pass."""
    if isinstance(figures, run.benchmark.scores_layout or Figures):
        return figures
    if isinstance(figures, BaseModel):
        figures = figures.model_dump(mode="json")
    if not isinstance(figures, dict):
        raise ScoresInvalid(
            f"{run.folder / SCORES_FILE}: not written: {run.config.benchmark}'s score() returned "
            f"{type(figures).__name__}, not its figures (a pydantic model or a JSON object)"
        )
    try:
        return run.benchmark.typed_figures(figures)
    except ScoresInvalid as error:
        raise ScoresInvalid(f"{run.folder / SCORES_FILE}: not written: {error}") from None


def derive_ahead(run: RunState, texts: list[str]) -> None:
    """The values the benchmark's `score` derives from each response (`response_values`) that are not cached yet,
    computed here under a progress line of their own (HelloBench's word counts of 647 answers: tens of seconds), each
    text once however many rows share it."""
    values, known = run.benchmark.response_values, run.derived.known
    missing = [(kind, text) for kind in values for text in dict.fromkeys(texts) if known(kind, text) is None]
    if not missing:
        return
    with stage_progress(f"{run.benchmark.response_values_label} ({run.config.model_label})", len(missing)) as tick:
        for kind, text in missing:
            run.derived.put(kind, text, values[kind](text))
            tick()


def score_run(run: RunState) -> RunScores:
    """The run's scores (`scores_of`), written to its scores.json."""
    scores = scores_of(run)
    write_scores(run.folder, scores)
    return scores


def write_scores(folder: Path, scores: dict[str, Any] | RunScores) -> Path:
    """scores.json written, once the document is a RunScores (`checked_scores`); a ScoresInvalid naming the file
    and the field if not, and nothing written."""
    if not isinstance(scores, RunScores):
        scores = checked_scores(folder, scores)
    return write_text_atomic(folder / SCORES_FILE, json.dumps(scores.document(), indent=2, ensure_ascii=False) + "\n")


def checked_scores(folder: Path, document: dict[str, Any]) -> RunScores:
    """`document` (as JSON gives it back) as `load_scores` reads it (`run_scores`); a ScoresInvalid naming the
    folder's scores.json and the field if it is not one."""
    try:
        return run_scores(json.loads(json.dumps(document, ensure_ascii=False)))
    except ScoresInvalid as error:
        raise ScoresInvalid(f"{folder / SCORES_FILE}: not written: {error}") from None


def scores_of(run: RunState) -> RunScores:
    """scores.json's content for the run's records as they are now, with the hash of what it was computed from
    (taken first: a log that grows meanwhile makes the hash older than the figures, never newer)."""
    from .uncertainty import apply_points, uncertainty_fields  # scipy, on the first scoring: a reader needs none

    inputs = records_hash(run.folder, baseline_folder(run.config.benchmark_args))
    generations = run.current_generations()
    judgements = run.current_judgements()
    samples = sample_scores(run, judgements)
    figures = figures_document(samples[0])
    uncertainty = uncertainty_fields(run.benchmark, samples)
    points = uncertainty.pop("points", {})
    if len(samples) > 1:
        apply_points(run.benchmark, figures, points)
    pending_generations = len(run.pending_generations())
    pending_judge_calls = len(run.pending_judge_keys())
    report = ScoreReport(
        benchmark=run.config.benchmark,
        config=run.config.benchmark_config,
        model=run.config.model_id,
        judge=run.config.judge.name if run.config.judge else None,
        n_samples=len(run.rows),
        n_generated=len(generations),
        n_truncated_generations=sum(1 for g in generations.values() if g.truncated),
        n_pending_generations=pending_generations,
        n_pending_judge_calls=pending_judge_calls,
        n_failed_calls=sum(run.failed.values()),
        parser_rescues=dict(Counter(j.rescue for j in judgements.values() if j.rescue)),
        complete=pending_generations == 0 and pending_judge_calls == 0,
        deviations=deviations(run),
        inputs=inputs,
        **figures,
        **uncertainty,
    )
    return checked_scores(run.folder, report.model_dump(mode="json"))


def deviations(run: RunState) -> list[str]:
    """Where this run's settings differ from the paper's, so that reports never hide it. Recorded verdicts
    (`--judge replay:`) bring the settings they were made with, and asking again returns the same reply: only who made
    them (`--judge-name`) is compared. A replayed model is compared as a model (named by `--name`, else its file)."""
    paper = run.benchmark.paper_settings()
    config = run.config
    judge_replayed = replayed(config.judge)
    found = []
    compared = [("generation", config.generation, paper.generation)]
    compared += [] if judge_replayed else [("judge", config.judge_generation, paper.judge)]
    for role, actual, expected in compared:
        for field, value in actual.model_dump().items():
            if value != getattr(expected, field):
                found.append(f"{role} {field} = {value!r} (paper: {getattr(expected, field)!r})")
    found += judge_model_deviations(config, paper.judge_model)
    if config.judge_attempts != paper.judge_attempts and not judge_replayed:
        found.append(f"judge attempts = {config.judge_attempts} (paper: {paper.judge_attempts})")
    if config.constrained_judge:  # the runner parses the reply as the schema's JSON, replayed or not
        found.append("judge output constrained to a JSON schema (paper: free text)")
    if config.parser != paper.parser:
        found.append(f"judge output parser = {config.parser} (paper: {paper.parser})")
    return found + run.benchmark.deviations(1 if judge_replayed else config.judge_attempts)  # a replay answers alike


def replayed(spec: ModelSpec | None) -> bool:
    return spec is not None and spec.replayed


def judge_model_deviations(config: RunConfig, paper_judge: str) -> list[str]:
    if config.judge is None:
        return []
    if not replayed(config.judge):
        return (
            []
            if same_model(config.judge.model, paper_judge)
            else [f"judge model = {config.judge.name} (paper: {paper_judge})"]
        )
    if config.judge_name and same_model(config.judge_name, paper_judge):
        return []
    made_by = f"by {config.judge_name}" if config.judge_name else "by a judge not named (--judge-name names it)"
    return [f"judge model = verdicts recorded {made_by}, replayed from {config.judge.name} (paper: {paper_judge})"]


def same_model(actual: str, paper: str) -> bool:
    """`vllm:/models/Llama-3.1-8B-Instruct` is the paper's `meta-llama/Llama-3.1-8B-Instruct`."""
    return Path(actual.rstrip("/")).name.lower() == Path(paper).name.lower()
