"""Benchmark adapters: which samples, which generation and judge requests, and how to score the records.

Judge prompts, parsers and scoring all come from `longform_eval.metric`; nothing is re-implemented here.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from longform_eval.dataset_builder import hellobench as hellobench_data
from longform_eval.dataset_builder import longgenbench as longgenbench_data
from longform_eval.dataset_builder.sources import resolve_source
from longform_eval.metric import Unscored
from longform_eval.metric.helloeval import build_judge_request, parse_checklist_verdict
from longform_eval.metric.helloeval.scoring import JudgedRow, row_score, score_rows
from longform_eval.metric.helloeval.weights import task_of_subcategory
from longform_eval.metric.longgenbench import (
    full_output,
    item_result,
    judge_prompt,
    match_checks,
    parse_yes_no,
    score_items,
    split_subtasks,
)
from longform_eval.metric.words import word_count

from .backends.base import Request
from .config import GenerationConfig

THINK = re.compile(r"<think>.*?</think>\s*", re.DOTALL)


def strip_think(text: str) -> tuple[str, bool]:
    """Remove `<think>...</think>` blocks; an unclosed `<think>` hides everything after it."""
    stripped = THINK.sub("", text)
    if "<think>" in stripped:
        stripped = stripped[: stripped.index("<think>")]
    return stripped, stripped != text


@dataclass(frozen=True)
class JudgeCall:
    """One judge request and what it is about."""

    key: str
    sample_id: str
    request: Request
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass
class Selection:
    """Which rows: a config, optional subcategories/scenarios, first N overall or per group."""

    config: str
    limit: int | None = None
    per_group: int | None = None
    groups: tuple[str, ...] = ()
    shortest: bool = False

    def apply(
        self, rows: list[dict[str, Any]], group_field: str, subgroup_field: str, text_field: str = "prompt"
    ) -> list[dict[str, Any]]:
        """Filter by group, then (shortest prompts first, if asked) keep the first N per group and overall."""
        if self.groups:
            rows = [r for r in rows if r[subgroup_field] in self.groups or r[group_field] in self.groups]
        if self.shortest:
            rows = sorted(rows, key=lambda r: len(r[text_field]))
        if self.per_group:
            counts: dict[str, int] = defaultdict(int)
            kept = []
            for row in rows:
                if counts[row[group_field]] < self.per_group:
                    counts[row[group_field]] += 1
                    kept.append(row)
            rows = kept
        return rows[: self.limit] if self.limit else rows


def rows_hash(rows: list[dict[str, Any]]) -> str:
    return hashlib.sha256(json.dumps(rows, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


class HelloBench:
    name = "hellobench"
    configs = ("all", *hellobench_data.TASKS, *(f"length_constrained_{n}" for n in hellobench_data.LENGTHS))
    judge_attempts = 3

    def __init__(self, selection: Selection, source: str | Path | None = None):
        if selection.config not in self.configs:
            raise ValueError(f"hellobench has no config {selection.config!r}; choose one of {', '.join(self.configs)}")
        tables = hellobench_data.build_tables(resolve_source("hellobench", source, hellobench_data.UPSTREAM))
        rows = next(t.rows for t in tables if t.name == selection.config)
        self.rows = selection.apply(rows, "task", "subcategory", "instruction")
        self.by_id = {row["id"]: row for row in self.rows}

    def generation_defaults(self) -> GenerationConfig:
        longest = 24000 if any((r["length_constraint"] or 0) >= 16000 for r in self.rows) else 16384
        return GenerationConfig(max_new_tokens=longest, temperature=0.8, top_p=1.0, seed=42, chat_template=True)

    def judge_defaults(self) -> GenerationConfig:
        return GenerationConfig(max_new_tokens=4096, temperature=0.8, top_p=1.0, seed=42, chat_template=True)

    def generation_request(self, row: dict[str, Any]) -> Request:
        return Request(key=row["id"], messages=({"role": "user", "content": row["instruction"]},))

    def judge_calls(self, row: dict[str, Any], response: str) -> list[JudgeCall]:
        judged = build_judge_request(row, response)
        request = Request(key=row["id"], messages=tuple(judged.messages))
        return [JudgeCall(row["id"], row["id"], request, {"truncated_input": judged.truncated})]

    def parse(self, call_meta: dict[str, Any], row: dict[str, Any], completion: str) -> list[float] | Unscored:
        return parse_checklist_verdict(completion, row["num_checklist"])

    def score(self, generations: dict[str, dict], judgements: dict[str, dict]) -> dict[str, Any]:
        weights = {row["subcategory"]: row["checklist_weights"] for row in self.rows}
        judged = []
        for sample_id, generation in generations.items():
            row = self.by_id.get(sample_id)
            if row is None:
                continue
            record = judgements.get(sample_id)
            verdict = Unscored("not judged") if record is None else verdict_of(record)
            judged.append(JudgedRow(sample_id, row["subcategory"], verdict, word_count(generation["response"])))
        scores = score_rows(judged, weights, task_of_subcategory())
        result = scores.to_dict()
        result["rows"] = [
            {
                "id": r.row_id,
                "subcategory": r.subcategory,
                "words": r.word_count,
                "row_score": scored_value(r.verdict, weights[r.subcategory]),
            }
            for r in judged
        ]
        return result


def scored_value(verdict: list[float] | Unscored, weights: list[float]) -> float | None:
    """The row score for the report, or None for an unscored row (a verdict of the wrong length included)."""
    value = verdict if isinstance(verdict, Unscored) else row_score(verdict, weights)
    return None if isinstance(value, Unscored) else value


def verdict_of(record: dict[str, Any]) -> list[float] | Unscored:
    return Unscored(record["unscored_reason"]) if record.get("verdict") is None else record["verdict"]


class LongGenBench:
    name = "longgenbench"
    configs = ("short", "long", "generated_short", "generated_long")
    judge_attempts = 1

    def __init__(
        self,
        selection: Selection,
        source: str | Path | None = None,
        seed: int = 0,
        verdict_rule: str = "paper",
        per_scenario: int = 100,
    ):
        if selection.config not in self.configs:
            raise ValueError(
                f"longgenbench has no config {selection.config!r}; choose one of {', '.join(self.configs)}"
            )
        self.setting = selection.config.removeprefix("generated_")
        if selection.config.startswith("generated_"):
            from longform_eval.dataset_builder.longgenbench_generator import generate_items

            rows = generate_items(self.setting, seed=seed, per_scenario=per_scenario)
        else:
            rows = longgenbench_data.read_setting(
                resolve_source("longgenbench", source, longgenbench_data.UPSTREAM), self.setting
            )
        self.rows = selection.apply(rows, "scenario", "subtask_type")
        self.by_id = {row["id"]: row for row in self.rows}
        self.verdict_rule = verdict_rule

    def generation_defaults(self) -> GenerationConfig:
        return GenerationConfig(
            max_new_tokens=16000 if self.setting == "short" else 32000,
            temperature=0.95,
            top_p=0.95,
            seed=6211027,
            stop=("*** finished",),
            chat_template=False,
        )

    def judge_defaults(self) -> GenerationConfig:
        return GenerationConfig(max_new_tokens=50, temperature=0.95, top_p=0.95, seed=42, chat_template=False)

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
            )
            for m in matched
            if m.block is not None
        ]

    def parse(self, call_meta: dict[str, Any], row: dict[str, Any], completion: str) -> bool | Unscored:
        return parse_yes_no(completion, self.verdict_rule)

    def score(self, generations: dict[str, dict], judgements: dict[str, dict]) -> dict[str, Any]:
        items = []
        for sample_id, generation in generations.items():
            row = self.by_id.get(sample_id)
            if row is None:
                continue
            output = self.output(row, generation["response"])
            present = {
                m.index
                for m in match_checks(row["checks"], split_subtasks(output, row["subtask_type"]))
                if m.block is not None
            }
            verdicts = []
            for index in range(len(row["checks"])):
                record = judgements.get(f"{sample_id}#{index}")
                if index not in present:
                    verdicts.append(None)
                else:
                    verdicts.append(Unscored("not judged") if record is None else verdict_of(record))
            items.append(item_result(row, output, verdicts))
        if not items:
            return {"n_items": 0}
        return score_items(items).to_dict()


def load_benchmark(name: str, selection: Selection, source: str | Path | None = None, **options):
    if name == "hellobench":
        return HelloBench(selection, source)
    if name == "longgenbench":
        return LongGenBench(selection, source, **options)
    raise ValueError(f"unknown benchmark {name!r}; choose hellobench or longgenbench")
