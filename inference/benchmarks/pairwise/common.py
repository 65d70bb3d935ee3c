"""What the pairwise benchmarks share: the model's answer judged against a baseline's, in both orders.

A subclass names its rows (`text_field`, the group fields), where its baselines may come from (`baseline_benchmarks`,
`reference_field`) and its generation settings; the judge prompts and settings are
`metric/pairwise/pairwise_judge.yaml`'s. The generation stage is the model's alone: a model as a baseline is a run
folder of its own (`longform-eval generate ... --out runs/B`, then `--baseline runs/B`).
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any, ClassVar, Literal, NamedTuple

import numpy as np
from pydantic import Field, field_validator

from longform_eval.metric.pairwise import Outcome, StyleFeatures
from longform_eval.metric.pairwise.judge import load_pairwise_prompt
from longform_eval.metric.pairwise.uncertainty import WIN_VALUE, pairwise_figures
from longform_eval.metric.uncertainty import Figure
from longform_eval.metric.uncertainty.intervals import normal_interval
from longform_eval.metric.uncertainty.units import UnitTable

from ...backends.base import Request
from ...config import GenerationConfig
from ..base import Benchmark, BenchmarkArgs, JudgeCall, PairwiseBattle, PaperSettings, sampling_config
from ..layouts import LengthControl, PairwiseLayout
from ..run_scores import RunScores
from .baseline import REFERENCE, BaselineRun, checked_baseline, read_baseline_run
from .calls import PairItem, item_verdict, judge_key, pair_calls, parse_reply, parts
from .scores import JudgedItem, score_items

PARSER = "verdict"


class BaselineAnswers(NamedTuple):
    """What a run's model is compared with: the baseline's name, where its answers come from (`reference` or the
    baseline run folder) and its answer to each row that has one, by row id."""

    name: str
    source: str
    answers: dict[str, str]


class PairwiseArgs(BenchmarkArgs):
    baseline: str | None = Field(
        None, description="'reference' (the dataset's reference answers) or a run folder whose answers to compare with"
    )
    mode: Literal["pairwise", "single"] = Field(
        "pairwise", description="pairwise: four labels, both orders; single: a 1-10 score per answer, mapped"
    )

    @field_validator("baseline")
    @classmethod
    def known_baseline(cls, value: str | None) -> str | None:
        return checked_baseline(value)


class PairwiseBenchmark(Benchmark):
    """Rows need `id` and `text_field`; `group_field` and `subgroup_fields` give the per-group figures."""

    Args = PairwiseArgs
    parsers = (PARSER,)
    headline_scale = "0..100"
    headline_figure = "win_rate"
    human_labels = "pairwise"
    scores_layout = PairwiseLayout
    percent_figures = frozenset({"win_rate", "length_controlled_win_rate"})
    figure_ranges: ClassVar[dict[str, tuple[float, float]]] = {"gsb": (-1.0, 1.0)}  # intervals clip to these
    baseline_benchmarks: ClassVar[tuple[str, ...]]
    same_config_baseline: ClassVar[bool] = True  # a baseline run folder must be of this benchmark config
    reference_field: ClassVar[str | None] = None

    def generation_settings(self) -> GenerationConfig:
        block = load_pairwise_prompt().generation
        return sampling_config(block, block.max_new_tokens)

    def paper_settings(self) -> PaperSettings:
        judge = load_pairwise_prompt().judge
        return PaperSettings(
            generation=self.generation_settings(),
            judge=sampling_config(judge, judge.max_tokens),
            judge_model=judge.model,
            judge_attempts=judge.attempts,
            parser=judge.parser,
        )

    @property
    def both_orders(self) -> bool:
        return load_pairwise_prompt().judge.both_orders

    @property
    def group_fields(self) -> tuple[str, ...]:
        return (self.group_field, *self.subgroup_fields)

    # ----- the baseline ---------------------------------------------------------------------------------------
    @functools.cached_property
    def baseline_run(self) -> BaselineRun:
        config = self.config if self.same_config_baseline else None
        return read_baseline_run(Path(self.args.baseline), self.baseline_benchmarks, config, self.read_run)

    def baseline_name(self) -> str | None:
        if self.args.baseline is None:
            return None
        if self.args.baseline == REFERENCE:
            return f"reference answers ({self.name}:{self.config})"
        return self.baseline_run.name

    def baseline_answer(self, row: dict[str, Any]) -> str | None:
        """The answer the row's response is compared with, or None when the baseline has none for this row."""
        if self.args.baseline is None:
            return None
        if self.args.baseline == REFERENCE:
            return usable_reference(row.get(self.reference_field)) if self.reference_field else None
        return self.baseline_run.answers.get(row["id"])

    def baseline_answers(self, rows: list[dict[str, Any]]) -> BaselineAnswers | None:
        """The baseline's answers to `rows` (the Space pairs them with the run's); None without a baseline."""
        if self.args.baseline is None:
            return None
        answers = {row["id"]: answer for row in rows if (answer := self.baseline_answer(row)) is not None}
        return BaselineAnswers(self.baseline_name(), self.args.baseline, answers)

    def item(self, row: dict[str, Any], response: str) -> PairItem | None:
        answer = self.baseline_answer(row)
        return None if answer is None else PairItem(row["id"], row[self.text_field], response, answer)

    # ----- the contract ---------------------------------------------------------------------------------------
    def generation_request(self, row: dict[str, Any]) -> Request:
        return Request(key=row["id"], messages=({"role": "user", "content": row[self.text_field]},))

    def judge_calls(self, row: dict[str, Any], response: str) -> list[JudgeCall]:
        item = self.item(row, response)
        return [] if item is None else pair_calls(item, self.args.mode, self.both_orders)

    def judge_keys(self, row: dict[str, Any], response: str) -> list[str]:
        item = self.item(row, response)
        if item is None:
            return []
        return [judge_key(item.id, part, item.tag) for part in parts(self.args.mode, self.both_orders)]

    def parse(self, call: JudgeCall, row: dict[str, Any], completion: str, parser: str) -> Any:
        return parse_reply(call.meta["part"], completion)

    def score(self, rows: list[dict[str, Any]], responses: dict[str, str], verdicts: dict[str, Any]) -> PairwiseLayout:
        judged, no_baseline = [], 0
        for row in rows:
            if row["id"] not in responses:
                continue
            item = self.item(row, responses[row["id"]])
            if item is None:
                no_baseline += 1
                continue
            verdict = item_verdict(item.id, item.tag, verdicts, self.args.mode, self.both_orders)
            groups = {field: str(row.get(field)) for field in self.group_fields}
            judged.append(JudgedItem(item.id, groups, verdict, item.answer, item.baseline))
        figures = score_items(judged, self.group_fields, no_baseline)
        return self.typed_figures({"baseline": self.baseline_name(), "mode": self.args.mode, **figures})

    judge_noise_column = "win"

    def unit_table(self, figures: PairwiseLayout) -> UnitTable | None:
        """One unit per compared question; unscored comparisons are NaN."""
        records = figures.battles
        if not records:
            return None
        values = [np.nan if r.outcome is None else WIN_VALUE[Outcome(r.outcome)] for r in records]
        return UnitTable(ids=tuple(r.id for r in records), columns={"win": np.array(values)}, unit="question")

    def figures(self, units: UnitTable) -> dict[str, Figure]:
        return pairwise_figures(units["win"])

    def fitted_intervals(self, figures: PairwiseLayout) -> dict[str, tuple[dict[str, Any], str]]:
        """The LC win rate's normal 95% interval from the GLM's own standard error (alpaca_eval's
        `lc_standard_error`: the spread of the predictions, not a refit: a refit takes about 0.5 s)."""
        fitted = figures.length_controlled
        if not isinstance(fitted, LengthControl):  # none, or `unavailable`
            return {}
        interval = normal_interval(fitted.length_controlled_win_rate, fitted.standard_error, fitted.n)
        method = "normal 95% interval from the GLM's standard error (alpaca_eval's lc_standard_error)"
        return {"length_controlled_win_rate": (interval.to_dict(), method)}

    def pairwise_battles(self, scores: RunScores) -> list[PairwiseBattle]:
        figures: PairwiseLayout = scores.figures
        return [
            PairwiseBattle(
                record.id,
                scores.model,
                figures.baseline,
                record.outcome,
                (record.chars[0], record.chars[1]),
                (StyleFeatures(**record.styles[0].model_dump()), StyleFeatures(**record.styles[1].model_dump())),
            )
            for record in figures.battles
            if record.outcome is not None
        ]


def usable_reference(answer: str | None) -> str | None:
    """A reference answer, or None for a missing one (empty, or the dataset's `NA`)."""
    return None if answer is None or answer.strip() in ("", "NA") else answer
