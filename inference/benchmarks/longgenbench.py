"""LongGenBench (Wu et al.): one raw completion per item, split into sub-tasks; a yes/no judge call per check."""

from __future__ import annotations

import re
from typing import Annotated, Any

import numpy as np
from pydantic import AfterValidator, Field

from longform_eval.dataset_builder.longgenbench_generator import PER_SCENARIO
from longform_eval.metric import Unscored
from longform_eval.metric.longgenbench import (
    full_output,
    item_result,
    judge_prompt,
    match_checks,
    parse_yes_no,
    score_items,
    split_subtasks,
)
from longform_eval.metric.longgenbench.judge import YES_NO_SCHEMA
from longform_eval.metric.longgenbench.scoring import KIND_LABELS, ItemResult
from longform_eval.metric.longgenbench.scoring import figures as check_counts
from longform_eval.metric.longgenbench.settings import paper_settings as longgenbench_settings
from longform_eval.metric.longgenbench.uncertainty import breakdown_intervals, longgenbench_figures
from longform_eval.metric.uncertainty import Figure
from longform_eval.metric.uncertainty.units import UnitTable

from ..backends.base import Request
from .base import Benchmark, BenchmarkArgs, JudgeCall, LengthTarget, PaperSettings, paper_settings_from
from .layouts import LongGenBenchLayout
from .run_scores import RunScores

PER_ENTRY_WORDS = re.compile(r"(?:at least|a minimum of|between) (\d+)(?: (?:and|to) \d+)? words")


class LongGenBenchArgs(BenchmarkArgs):
    seed: int = Field(0, description="seed of the generated_* configs")
    per_scenario: Annotated[int, AfterValidator(PER_SCENARIO.check)] = Field(
        100, gt=0, description=f"items per scenario of the generated_* configs (at most {PER_SCENARIO.maximum})"
    )


class LongGenBench(Benchmark):
    name = "longgenbench"
    configs = ("short", "long", "generated_short", "generated_long")
    default_config = "short"
    parsers = ("upstream", "strict")
    Args = LongGenBenchArgs
    group_field = "scenario"
    subgroup_fields = ("subtask_type",)
    text_field = "prompt"
    headline_scale = "0..100"
    headline_figure = "wavg"
    scores_layout = LongGenBenchLayout

    @property
    def setting(self) -> str:
        return self.config.removeprefix("generated_")

    def build_options(self) -> dict[str, Any]:
        if not self.config.startswith("generated_"):
            return {}
        return {"generate": True, "seed": self.args.seed, "per_scenario": self.args.per_scenario}

    def paper_settings(self) -> PaperSettings:
        settings = longgenbench_settings()
        generation = settings.generation
        tokens = generation.max_new_tokens[self.setting]
        return paper_settings_from(generation, settings.judge, tokens, stop=tuple(generation.stop))

    def generation_request(self, row: dict[str, Any]) -> Request:
        return Request(key=row["id"], prompt=row["prompt"])

    def output(self, row: dict[str, Any], response: str) -> str:
        return full_output(row["prefix"], response)

    def judge_calls(self, row: dict[str, Any], response: str) -> list[JudgeCall]:
        matched = match_checks(row["checks"], split_subtasks(self.output(row, response), row["subtask_type"]))
        return [
            JudgeCall(
                f"{row['id']}#{m.index}",
                row["id"],
                Request(key=f"{row['id']}#{m.index}", prompt=judge_prompt(m.block, m.description)),
                {"check": m.index, "kind": m.kind, "subtask": m.subtask},
                YES_NO_SCHEMA,
            )
            for m in matched
            if m.block is not None
        ]

    def parse(self, call: JudgeCall, row: dict[str, Any], completion: str, parser: str) -> Any:
        return parse_yes_no(completion, "paper" if parser == "upstream" else parser)

    def score(
        self, rows: list[dict[str, Any]], responses: dict[str, str], verdicts: dict[str, Any]
    ) -> LongGenBenchLayout:
        scored = [(row, self.item(row, responses[row["id"]], verdicts)) for row in rows if row["id"] in responses]
        if not scored:
            return self.typed_figures({"n_items": 0})
        result = score_items([item for _, item in scored]).to_dict()
        result["rows"] = [
            {"id": item.item_id, "words": item.word_count, "required": word_budget(row)} | item_counts(item)
            for row, item in scored
        ]
        items = [item for _, item in scored]
        result["group_intervals"] = breakdown_intervals(
            [item.scenario for item in items],
            np.array([item.completion_rate for item in items]),
            {label: np.array([type_counts(item, kind) for item in items]) for kind, label in KIND_LABELS.items()},
        )
        return self.typed_figures(result)

    judge_noise_column = "stic2"

    def unit_table(self, figures: LongGenBenchLayout) -> UnitTable | None:
        """One unit per item: its checks are answered by one output, so they are resampled together."""
        rows = [r for r in figures.rows if r.counted]
        if not rows:
            return None
        checks = np.array([r.n_checks for r in rows], dtype=float)
        yes = np.array([r.n_yes for r in rows], dtype=float)
        return UnitTable(
            ids=tuple(r.id for r in rows),
            columns={
                "cr": np.array([r.cr for r in rows], dtype=float),
                "stic2": np.divide(100 * yes, checks, out=np.full(len(rows), np.nan), where=checks > 0),
                "judged": np.array([r.n_judged for r in rows], dtype=float),
                "checks": checks,
            },
            unit="item",
        )

    def figures(self, units: UnitTable) -> dict[str, Figure]:
        return longgenbench_figures(units["cr"], units["stic2"], units["judged"], units["checks"])

    def item(self, row: dict[str, Any], response: str, verdicts: dict[str, Any]):
        output = self.output(row, response)
        present = {m.index for m in match_checks(row["checks"], split_subtasks(output, row["subtask_type"])) if m.block}
        judged = [
            verdicts.get(f"{row['id']}#{index}", Unscored("not judged")) if index in present else None
            for index in range(len(row["checks"]))
        ]
        return item_result(row, output, judged)

    def quick_order(self, row: dict[str, Any]) -> tuple:
        """A short run only scores STIC if a check falls on the first sub-tasks: earliest check, then shortest."""
        return (min((c["subtask"] for c in row["checks"]), default=row["num_subtasks"]), len(row["prompt"]))

    def length_targets(self, scores: RunScores) -> list[LengthTarget]:
        """The word budget: sub-tasks x the per-entry minimum the prompt states; words as Len counts them."""
        return [
            LengthTarget(r.id, r.required, r.words, "words (whitespace-split, LongGenBench's Len)", "at least")
            for r in scores.figures.rows
            if r.required
        ]


def item_counts(item: ItemResult) -> dict[str, Any]:
    """An item's completion rate and check counts, the per-item sums its intervals resample."""
    counts = check_counts(np.array(item.outcomes, dtype=np.int8))
    return {"cr": item.completion_rate, "n_checks": counts.n_checks, "n_judged": counts.n_judged, "n_yes": counts.n_yes}


def type_counts(item: ItemResult, kind: str) -> tuple[int, int, int]:
    """An item's checks, judged checks and yes of one kind (single, range, periodic)."""
    outcomes = np.array([o for o, k in zip(item.outcomes, item.kinds, strict=True) if k == kind], dtype=np.int8)
    counts = check_counts(outcomes)
    return counts.n_checks, counts.n_judged, counts.n_yes


def word_budget(row: dict[str, Any]) -> int | None:
    """`num_subtasks` x the words per entry the prompt asks for ("at least 200 words", "a minimum of 150 words",
    "between 200 and 220 words": the lower bound), or None when the prompt states none."""
    match = PER_ENTRY_WORDS.search(row["prompt"])
    return row["num_subtasks"] * int(match.group(1)) if match else None
