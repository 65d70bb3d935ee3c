"""HelloBench: one chat turn per prompt; HelloEval judges all checklists of a row in one call.

The generation limit of the main configs is that of upstream run.py for the model a run names (4,096 for GPT-4o,
GPT-4-turbo and Gemma-2, 2,048 for MAP-Neo, 16,384 for the others it ran; `metric.helloeval.upstream_runs`); a model
run.py did not run gets 16,384, listed in `deviations`. An explicit `--max-new-tokens` wins.
"""

from __future__ import annotations

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
from longform_eval.metric.words import word_count, word_tokenize

from ..backends.base import Request
from .base import Benchmark, ChecklistRow, JudgeCall, LengthTarget, PaperSettings, paper_settings_from
from .layouts import HelloBenchLayout
from .run_scores import RunScores

WORD_COUNT = "words:nltk-punkt-treebank"  # HelloBench's WC, as cached by content hash (a new rule: a new name)


class HelloBench(Benchmark):
    name = "hellobench"
    configs = ("all", *TASKS, *(f"length_constrained_{n}" for n in LENGTHS))
    default_config = "all"
    parsers = ("upstream", "lenient")
    group_field = "task"
    subgroup_fields = ("subcategory",)
    text_field = "instruction"
    headline_scale = "-300..100"
    headline_figure = "overall"
    scores_layout = HelloBenchLayout
    human_labels = "checklists"
    response_values = {WORD_COUNT: word_count}  # counted ahead of scoring, with a progress line
    response_values_label = "word counts"

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
        """The row's one judge call; the response's tokens (the judge's view of it) also give its word count, kept
        for scoring: each answer is tokenized once per run, not once to judge and once to count."""
        tokens = word_tokenize(response)
        self.derived(WORD_COUNT, response, lambda _: len(tokens))
        judged = build_judge_request(row, response, tokens=tokens)
        request = Request(key=row["id"], messages=tuple(judged.messages))
        schema = verdict_schema(row["num_checklist"])
        return [JudgeCall(row["id"], row["id"], request, {"truncated_input": judged.truncated}, schema)]

    def judge_keys(self, row: dict[str, Any], response: str) -> list[str]:
        return [row["id"]]  # one call per row, whatever the response: no judge prompt (and no tokenizing) to learn it

    def parse(self, call: JudgeCall, row: dict[str, Any], completion: str, parser: str) -> Any:
        parsed = parse_verdict(completion, row["num_checklist"], rule=parser)
        return parsed.verdict if parsed.rescue is None else (parsed.verdict, parsed.rescue)

    def score(
        self, rows: list[dict[str, Any]], responses: dict[str, str], verdicts: dict[str, Any]
    ) -> HelloBenchLayout:
        weights = {row["subcategory"]: row["checklist_weights"] for row in rows}
        judged = [
            JudgedRow(row["id"], row["subcategory"], verdicts.get(row["id"], Unscored("not judged")), words)
            for row in rows
            if row["id"] in responses
            for words in (self.derived(WORD_COUNT, responses[row["id"]], word_count),)
        ]
        result = score_rows(judged, weights, task_of_subcategory()).to_dict()
        required = {row["id"]: row.get("length_constraint") for row in rows}
        result["rows"] = [
            {"id": r.row_id, "subcategory": r.subcategory, "words": r.word_count, "row_score": scored(r, weights)}
            | ({"required": required[r.row_id]} if required[r.row_id] else {})
            for r in judged
        ]
        return self.typed_figures(result)

    judge_noise_column = "row_score"

    def unit_table(self, figures: HelloBenchLayout) -> UnitTable | None:
        """One unit per judged prompt, resampled within its task (the overall score is a mean of task means)."""
        rows = figures.rows
        if not rows:
            return None
        task_of = task_of_subcategory()
        return UnitTable(
            ids=tuple(r.id for r in rows),
            columns={"row_score": np.array([np.nan if r.row_score is None else r.row_score for r in rows])},
            strata=tuple(task_of[r.subcategory] for r in rows),
            unit="prompt",
            stratified_by="task",
        )

    def checklist_rows(self, scores: RunScores) -> list[ChecklistRow]:
        task_of = task_of_subcategory()
        return [
            ChecklistRow(r.id, task_of[r.subcategory], r.subcategory, float(r.row_score))
            for r in scores.figures.rows
            if r.row_score is not None
        ]

    def figures(self, units: UnitTable) -> dict[str, Figure]:
        return helloeval_figures(units["row_score"], units.strata)

    def figure_path(self, name: str) -> tuple[str, ...]:
        return (name,) if name == "overall" else ("tasks", name, "score")

    def length_targets(self, scores: RunScores) -> list[LengthTarget]:
        """The length-constrained configs ask for "no shorter than N words"; WC counts nltk tokens, as the paper."""
        return [
            LengthTarget(r.id, r.required, r.words, "words (nltk tokens, HelloBench's WC)", "at least")
            for r in scores.figures.rows
            if r.required
        ]
