"""HelloBench: 647 long-output prompts in 5 tasks, with checklists and human-fitted checklist weights."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

import datasets

from .errors import SourceError
from .folder import CardSpec, ConfigTable, write_dataset_folder
from .hellobench_weights import load_weights
from .records import read_jsonl, require
from .sources import Upstream, resolve_source

NAME = "hellobench"
UPSTREAM = Upstream("Quehry/HelloBench", "d403282968b0a61a4963a73c631d3fc1318f17d7")
TASKS = ("open_ended_qa", "summarization", "chat", "text_completion", "heuristic_text_generation")
LENGTHS = ("2k", "4k", "8k", "16k")
WEIGHTS_FILE = "weighted_scores.txt"
LENGTH_PATTERN = re.compile(r"no shorter than ([\d,]+) words")

FEATURES = datasets.Features(
    {
        "id": datasets.Value("string"),
        "task": datasets.Value("string"),
        "subcategory": datasets.Value("string"),
        "instruction": datasets.Value("string"),
        "checklists": datasets.List(datasets.Value("string")),
        "checklist_weights": datasets.List(datasets.Value("float64")),
        "num_checklist": datasets.Value("int32"),
        "raw_text": datasets.Value("string"),
        "requirements": datasets.List(datasets.Value("string")),
        "length_constraint": datasets.Value("int32"),
    }
)


def task_file(source: Path, task: str) -> Path:
    return source / "data" / "main_data" / f"{task}.jsonl"


def length_file(source: Path, length: str) -> Path:
    return source / "data" / "length_constrained_data" / f"heuristic_text_generation_{length}.jsonl"


def length_constraint(record: dict[str, Any]) -> int | None:
    """The "no shorter than N words" requirement of the length-constrained prompts, if any."""
    texts = list(record.get("requirements") or []) + [record.get("instruction") or ""]
    for text in texts:
        match = LENGTH_PATTERN.search(text)
        if match:
            return int(match.group(1).replace(",", ""))
    return None


def read_rows(path: Path, task: str, weights: dict[str, list[float]]) -> list[dict[str, Any]]:
    """Validate and convert one HelloBench JSONL file."""
    rows = []
    for line, record in read_jsonl(path):
        row_id = require(path, line, record, "id", str)
        subcategory = require(path, line, record, "category", str)
        instruction = require(path, line, record, "instruction", str)
        checklists = require(path, line, record, "checklists", list)
        num_checklist = require(path, line, record, "num_checklist", int)
        requirements = record.get("requirements")
        if requirements is not None and not isinstance(requirements, list):
            raise SourceError(path, line, "requirements", "expected a list or null")
        if subcategory not in weights:
            raise SourceError(path, line, "category", f"unknown subcategory {subcategory!r} (not in the weights)")
        if num_checklist != len(checklists):
            raise SourceError(
                path, line, "num_checklist", f"is {num_checklist} but there are {len(checklists)} checklists"
            )
        if len(weights[subcategory]) != len(checklists):
            raise SourceError(
                path,
                line,
                "checklists",
                f"{len(checklists)} checklists but {len(weights[subcategory])} weights for {subcategory!r}",
            )
        rows.append(
            {
                "id": row_id,
                "task": task,
                "subcategory": subcategory,
                "instruction": instruction,
                "checklists": checklists,
                "checklist_weights": weights[subcategory],
                "num_checklist": num_checklist,
                "raw_text": record.get("raw_text"),
                "requirements": requirements,
                "length_constraint": length_constraint(record),
            }
        )
    return rows


def build_tables(source: Path, weights_path: Path | None = None) -> list[ConfigTable]:
    weights = load_weights(weights_path or source / WEIGHTS_FILE)
    per_task = {task: read_rows(task_file(source, task), task, weights) for task in TASKS}
    tables = [ConfigTable(task, rows, FEATURES) for task, rows in per_task.items()]
    tables.append(ConfigTable("all", [row for rows in per_task.values() for row in rows], FEATURES))
    for length in LENGTHS:
        rows = read_rows(length_file(source, length), "heuristic_text_generation", weights)
        tables.append(ConfigTable(f"length_constrained_{length}", rows, FEATURES))
    return tables


def card_spec(tables: list[ConfigTable]) -> CardSpec:
    everything = next(t for t in tables if t.name == "all").rows
    subcategories = Counter((row["task"], row["subcategory"]) for row in everything)
    return CardSpec(
        template="hellobench.md.j2",
        pretty_name="HelloBench",
        license="mit",
        language=["en"],
        task_categories=["text-generation"],
        tags=["long-form-generation", "llm-as-a-judge", "checklist-evaluation"],
        context={
            "upstream": UPSTREAM,
            "tasks": TASKS,
            "task_counts": Counter(row["task"] for row in everything),
            "subcategories": sorted(subcategories.items()),
            "num_subcategories": len({sub for _, sub in subcategories}),
        },
    )


def build(
    source: str | Path | None = None, out: str | Path = "build/hellobench", weights: str | Path | None = None
) -> Path:
    """Build the HelloBench dataset folder; `weights` replaces the shipped weighted_scores.txt."""
    source_dir = resolve_source(NAME, source, UPSTREAM)
    tables = build_tables(source_dir, Path(weights) if weights else None)
    return write_dataset_folder(out, tables, card_spec(tables))
