"""HelloBench: one chat turn per prompt; HelloEval judges all checklists of a row in one call.

The generation limit of the main configs is that of upstream run.py for the model a run names (4,096 for GPT-4o,
GPT-4-turbo and Gemma-2, 2,048 for MAP-Neo, 16,384 for the others it ran; `metric.helloeval.upstream_runs`); a model
run.py did not run gets 16,384, listed in `deviations`. An explicit `--max-new-tokens` wins.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from longform_eval.dataset_builder.hellobench import LENGTHS, TASKS
from longform_eval.metric import Unscored
from longform_eval.metric.helloeval import build_judge_request
from longform_eval.metric.helloeval.parser import parse_verdict, verdict_schema
from longform_eval.metric.helloeval.scoring import JudgedRow, score_rows, scored
from longform_eval.metric.helloeval.settings import paper_settings as helloeval_settings
from longform_eval.metric.helloeval.uncertainty import helloeval_figures
from longform_eval.metric.helloeval.upstream_runs import judge_retry_deviation, model_deviations, upstream_model
from longform_eval.metric.helloeval.weights import task_of_subcategory
from longform_eval.metric.uncertainty import Figure
from longform_eval.metric.uncertainty.units import UnitTable
from longform_eval.metric.words import word_count

from ..backends.base import Request
from ..report.context import (
    RELEASED_JUDGE,
    ContextRow,
    Published,
    RunContext,
    agreement_line,
    published_interval,
    released_figures,
)
from ..report.plots import Plot, bar_plot, scatter_plot, split_plots
from ..report.tables import fmt, fmt_bounds, fmt_figure, interval_of, markdown_table
from .base import Benchmark, JudgeCall, LengthTarget, PaperSettings, ReportSection, paper_settings_from
from .layouts import HelloBenchLayout
from .registry import register_benchmark


@register_benchmark
class HelloBench(Benchmark):
    name = "hellobench"
    configs = ("all", *TASKS, *(f"length_constrained_{n}" for n in LENGTHS))
    default_config = "all"
    builder = "hellobench"
    parsers = ("upstream", "lenient")
    group_field = "task"
    subgroup_fields = ("subcategory",)
    text_field = "instruction"
    headline_scale = "-300..100"
    headline_figure = "overall"
    scores_layout = HelloBenchLayout

    def paper_settings(self) -> PaperSettings:
        settings = helloeval_settings()
        generation = settings.generation
        if self.config == "length_constrained_16k":
            tokens = generation.max_new_tokens_16k
        elif self.per_model_limits():
            known = upstream_model(self.model, generation.models)
            tokens = known.max_new_tokens if known else generation.max_new_tokens
        else:
            tokens = generation.max_new_tokens
        return paper_settings_from(generation, settings.judge, tokens)

    def per_model_limits(self) -> bool:
        """run.py's per-model limits are those of the main prompts (its length-constrained runs use 16,384 / 24,000)."""
        return not self.config.startswith("length_constrained")

    def deviations(self, judge_attempts: int) -> list[str]:
        generation = helloeval_settings().generation
        limits = self.per_model_limits()
        found = model_deviations(self.model, generation.models, generation.max_new_tokens) if limits else []
        return found + ([judge_retry_deviation()] if judge_attempts > 1 else [])

    def generation_request(self, row: dict[str, Any]) -> Request:
        return Request(key=row["id"], messages=({"role": "user", "content": row["instruction"]},))

    def judge_calls(self, row: dict[str, Any], response: str) -> list[JudgeCall]:
        judged = build_judge_request(row, response)
        request = Request(key=row["id"], messages=tuple(judged.messages))
        schema = verdict_schema(row["num_checklist"])
        return [JudgeCall(row["id"], row["id"], request, {"truncated_input": judged.truncated}, schema)]

    def parse(self, call: JudgeCall, row: dict[str, Any], completion: str, parser: str) -> Any:
        parsed = parse_verdict(completion, row["num_checklist"], rule=parser)
        return parsed.verdict if parsed.rescue is None else (parsed.verdict, parsed.rescue)

    def score(self, rows: list[dict[str, Any]], responses: dict[str, str], verdicts: dict[str, Any]) -> dict[str, Any]:
        weights = {row["subcategory"]: row["checklist_weights"] for row in rows}
        judged = [
            JudgedRow(row["id"], row["subcategory"], verdicts.get(row["id"], Unscored("not judged")), words)
            for row in rows
            if row["id"] in responses
            for words in (word_count(responses[row["id"]]),)
        ]
        result = score_rows(judged, weights, task_of_subcategory()).to_dict()
        required = {row["id"]: row.get("length_constraint") for row in rows}
        result["rows"] = [
            {"id": r.row_id, "subcategory": r.subcategory, "words": r.word_count, "row_score": scored(r, weights)}
            | ({"required": required[r.row_id]} if required[r.row_id] else {})
            for r in judged
        ]
        return result

    def report_section(self, scores: dict[str, Any], folder: Path) -> ReportSection:
        lines = [
            f"**Overall HelloEval score: {fmt_figure(scores, 'overall', scores['overall'])}** (mean of task scores, "
            f"-300..100; a task score is (mean row score - 75) x 4, so a row score of 75 maps to 0 and 0 to the floor "
            f"-300); scored rows {scores['n_scored']}, unscored {scores['n_unscored']}; mean word count "
            f"{fmt(scores['mean_word_count'], 0)}.",
            "",
            *markdown_table(
                ("task", "score", "95% CI", "mean row score", "scored", "unscored", "words"),
                [
                    (t, fmt(s["score"]), fmt_bounds(interval_of(scores, t)), fmt(s["mean_row_score"]), s["n_scored"])
                    + (s["n_unscored"], fmt(s["mean_word_count"], 0))
                    for t, s in scores["tasks"].items()
                ],
            ),
            "",
            *markdown_table(
                ("subcategory", "mean row score (0..100)", "scored", "unscored"),
                [
                    (n, fmt(s["mean_row_score"]), s["n_scored"], s["n_unscored"])
                    for n, s in scores["subcategories"].items()
                ],
            ),
        ]
        if scores["unscored_reasons"]:
            lines += ["", "Unscored reasons:", *[f"- {r}: {n}" for r, n in scores["unscored_reasons"].items()]]
        plots, absent = split_plots(self.plots(scores, folder))
        return ReportSection(lines + ([""] + absent if absent else []), plots)

    def plots(self, scores: dict[str, Any], folder: Path) -> list[Plot]:
        tasks = {t: s["score"] for t, s in scores["tasks"].items() if s["score"] is not None}
        found = {t: interval_of(scores, t) for t in tasks}
        bounds = {t: (b["low"], b["high"]) for t, b in found.items() if isinstance(b, dict)}
        rows = [r for r in scores.get("rows", []) if r["row_score"] is not None]
        return [
            bar_plot(
                folder / "score_per_task.png",
                tasks,
                ylabel="task score (-300..100)",
                title=f"HelloEval score per task: {scores['model']}" + (" (error bars: 95% CI)" if bounds else ""),
                unit="tasks with a score",
                bounds=bounds,
            ),
            scatter_plot(
                folder / "score_vs_words.png",
                [r["words"] for r in rows],
                [r["row_score"] for r in rows],
                xlabel="response words (nltk tokens)",
                ylabel="row score (0..100)",
                title="Score against length",
                unit="scored rows",
            ),
        ]

    def headline(self, scores: dict[str, Any]) -> tuple[str, str]:
        details = " ".join(f"{t[:4]} {fmt(v['score'])}" for t, v in scores["tasks"].items())
        return fmt_figure(scores, "overall", scores["overall"]), details

    judge_noise_column = "row_score"

    def unit_table(self, scores: dict[str, Any]) -> UnitTable | None:
        """One unit per judged prompt, resampled within its task (the overall score is a mean of task means)."""
        rows = scores.get("rows") or []
        if not rows:
            return None
        task_of = task_of_subcategory()
        return UnitTable(
            ids=tuple(r["id"] for r in rows),
            columns={"row_score": np.array([np.nan if r["row_score"] is None else r["row_score"] for r in rows])},
            strata=tuple(task_of[r["subcategory"]] for r in rows),
            unit="prompt",
            stratified_by="task",
        )

    def figures(self, units: UnitTable) -> dict[str, Figure]:
        return helloeval_figures(units["row_score"], units.strata)

    def figure_path(self, name: str) -> tuple[str, ...]:
        return (name,) if name == "overall" else ("tasks", name, "score")

    def context(self, scores: dict[str, Any], folder: Path) -> RunContext:
        """The released models scored from their released GPT-4o verdicts, over all main prompts and over this run's
        (length-constrained prompts are other prompts: no same-prompt rows for them)."""
        main = not self.config.startswith("length_constrained")
        published = released_figures(folder, {r["id"] for r in scores.get("rows", [])} if main else None)
        if isinstance(published, str):
            return RunContext([], [published, agreement_line()])
        other_prompts = "The released verdicts judge the main prompts, not this run's length-constrained ones."
        notes = [] if main else [other_prompts]
        return RunContext([self.context_row(p) for p in published], [*notes, agreement_line()])

    def context_row(self, published: Published) -> ContextRow:
        """The published figure with its interval, computed as a run's own (`published_interval`)."""
        scores = published.scores
        unscored = f", {scores['n_unscored']} unscored" if scores["n_unscored"] else ""
        return ContextRow(
            f"{published.model} (published)",
            RELEASED_JUDGE,
            published.prompts + unscored,
            scores["overall"],
            self.headline_scale,
            self.headline(scores)[1],
            published_interval(self, scores, "overall"),
        )

    def length_targets(self, scores: dict[str, Any]) -> list[LengthTarget]:
        """The length-constrained configs ask for "no shorter than N words"; WC counts nltk tokens, as the paper."""
        return [
            LengthTarget(r["id"], r["required"], r["words"], "words (nltk tokens, HelloBench's WC)", "at least")
            for r in scores.get("rows", [])
            if r.get("required")
        ]
