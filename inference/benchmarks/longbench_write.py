"""LongBench-Write (Bai et al., LongWriter): one user turn per prompt; one six-dimension quality judge call per output.

The prompt goes through the model's chat template. Upstream pred.py does that for every model but those whose path
contains "llama", which get the raw text `[INST]{prompt}[/INST]` (BOS from the tokenizer, no template):
`--benchmark-arg prompt_format=upstream` sends that raw prompt (a completion request) to such a model, and without it
a Llama model's run lists the chat template in `deviations`.

S_l (length following) needs no judge; S_q does; S = (S_l + S_q) / 2. The parser `strict` (default) leaves a reply
without all six dimensions unscored; `upstream_fill` reads a missing dimension as 3, as upstream's aggregation
does, and is listed as a deviation, each fill counted in `parser_rescues`.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from pydantic import Field, SerializerFunctionWrapHandler, model_serializer

from longform_eval.dataset_builder.longbench_write import CONFIG_FILES
from longform_eval.metric import Unscored
from longform_eval.metric.longbench_write import (
    PARSER_RULES,
    Item,
    count_length,
    judge_prompt,
    parse_judgement,
    score_items,
)
from longform_eval.metric.longbench_write import paper_settings as longbench_write_settings
from longform_eval.metric.longbench_write.generation import (
    judge_retry_deviation,
    prompt_format_deviation,
    upstream_raw_prompt,
    upstream_uses_raw_prompt,
)
from longform_eval.metric.longbench_write.judge import judgement_schema
from longform_eval.metric.longbench_write.uncertainty import UNIT, longbench_write_figures, part_intervals
from longform_eval.metric.uncertainty import Figure
from longform_eval.metric.uncertainty.groups import group_method
from longform_eval.metric.uncertainty.units import UnitTable

from ..backends.base import Request
from .base import (
    Benchmark,
    BenchmarkArgs,
    JudgeCall,
    LengthTarget,
    PaperSettings,
    paper_settings_from,
)
from .layouts import LongBenchWriteLayout
from .run_scores import RunScores

FILL_RESCUE = "missing_dimension_filled_with_3"
LENGTH_UNIT = "CJK characters + English words"


class LongBenchWriteArgs(BenchmarkArgs):
    prompt_format: Literal["chat", "upstream"] = Field(
        "chat",
        description='"upstream": pred.py\'s raw "[INST]{prompt}[/INST]" for a model whose path contains "llama" '
        '(the chat template for any other, as pred.py\'s model.chat); "chat": the chat template for every model',
    )

    @model_serializer(mode="wrap")
    def without_default(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """The default is left out of config.yaml, so run folders made before the option resume unchanged."""
        return {k: v for k, v in handler(self).items() if not (k == "prompt_format" and v == "chat")}


def with_part_intervals(scores: dict[str, Any]) -> dict[str, Any]:
    """scores.json with each bucket's and each language's S_l and S_q intervals (over that part's items) beside them."""
    for parts, key in ((scores["buckets"], "bucket"), (scores["by_language"], "language")):
        found = part_intervals(scores["rows"], key)
        for name, part in parts.items():
            part["intervals"] = found[name]
    return scores | {"part_interval_method": group_method(UNIT, "part")}


class LongBenchWrite(Benchmark):
    name = "longbench_write"
    configs = tuple(CONFIG_FILES)
    default_config = "all"
    parsers = PARSER_RULES
    group_field = "type"
    subgroup_fields = ("language",)
    text_field = "prompt"
    headline_scale = "0..100"
    headline_figure = "s"
    scores_layout = LongBenchWriteLayout
    Args = LongBenchWriteArgs

    def paper_settings(self) -> PaperSettings:
        settings = longbench_write_settings()
        return paper_settings_from(settings.generation, settings.judge, settings.generation.max_new_tokens)

    def generation_request(self, row: dict[str, Any]) -> Request:
        """pred.py's request: the raw `[INST]{prompt}[/INST]` (tokenized with BOS, as a raw prompt is by every
        backend) for a Llama model under `prompt_format=upstream`, else the prompt as one chat turn."""
        if self.args.prompt_format == "upstream" and upstream_uses_raw_prompt(self.model):
            return Request(key=row["id"], prompt=upstream_raw_prompt(row["prompt"]))
        return Request(key=row["id"], messages=({"role": "user", "content": row["prompt"]},))

    def deviations(self, judge_attempts: int) -> list[str]:
        chat_on_llama = self.args.prompt_format == "chat" and upstream_uses_raw_prompt(self.model)
        retries = [judge_retry_deviation(judge_attempts)] if judge_attempts > 1 else []
        return ([prompt_format_deviation()] if chat_on_llama else []) + retries

    def judge_calls(self, row: dict[str, Any], response: str) -> list[JudgeCall]:
        prompt = judge_prompt(row["prompt"], response)
        return [
            JudgeCall(
                row["id"],
                row["id"],
                Request(key=row["id"], messages=({"role": "user", "content": prompt},)),
                schema=judgement_schema(),
            )
        ]

    def judge_keys(self, row: dict[str, Any], response: str) -> list[str]:
        return [row["id"]]

    def parse(self, call: JudgeCall, row: dict[str, Any], completion: str, parser: str) -> Any:
        parsed = parse_judgement(completion, parser)
        if parsed.filled and not isinstance(parsed.scores, Unscored):
            return parsed.scores, FILL_RESCUE
        return parsed.scores

    def score(
        self, rows: list[dict[str, Any]], responses: dict[str, str], verdicts: dict[str, Any]
    ) -> LongBenchWriteLayout:
        items = [
            Item(
                row["id"],
                row["required_length"],
                count_length(responses[row["id"]]),
                verdicts.get(row["id"], Unscored("not judged")),
                row.get("language"),
            )
            for row in rows
            if row["id"] in responses
        ]
        return self.typed_figures(with_part_intervals(score_items(items).to_dict()))

    judge_noise_column = "s_q"

    def unit_table(self, figures: LongBenchWriteLayout) -> UnitTable | None:
        rows = figures.rows
        if not rows:
            return None
        return UnitTable(
            ids=tuple(r.id for r in rows),
            columns={
                "s_l": np.array([np.nan if r.s_l is None else r.s_l for r in rows]),
                "s_q": np.array([np.nan if r.s_q is None else r.s_q for r in rows]),
            },
            unit="prompt",
        )

    def figures(self, units: UnitTable) -> dict[str, Figure]:
        return longbench_write_figures(units["s_l"], units["s_q"])

    def length_targets(self, scores: RunScores) -> list[LengthTarget]:
        return [LengthTarget(r.id, r.required, r.length, LENGTH_UNIT) for r in scores.figures.rows]
