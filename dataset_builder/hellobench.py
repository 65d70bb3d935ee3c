"""HelloBench: 647 long-output prompts in 5 tasks, with checklists and human-fitted checklist weights, and the
responses of seven models released upstream (config `released_responses`, joined to the prompts on `id`)."""

from __future__ import annotations

import functools
import re
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from longform_eval.common.errors import SourceError
from longform_eval.common.plurals import counted
from longform_eval.common.records import UniqueIds, read_jsonl, require, require_count, require_strings

from .card import CardRepo, CardSpec
from .counts import CountCheck
from .folder import check_output_folder, write_dataset_folder
from .hellobench_released import RELEASED_CONFIG, released_features, released_rows, released_summary
from .hellobench_weights import load_weights
from .sources import Upstream, resolve_source
from .tables import ConfigTable

if TYPE_CHECKING:
    import datasets

NAME = "hellobench"
UPSTREAM = Upstream("Quehry/HelloBench", "d403282968b0a61a4963a73c631d3fc1318f17d7")
TASKS = ("open_ended_qa", "summarization", "chat", "text_completion", "heuristic_text_generation")
LENGTHS = ("2k", "4k", "8k", "16k")
WEIGHTS_FILE = "weighted_scores.txt"
LENGTH_PATTERN = re.compile(r"no shorter than ([\d,]+) words")
PUBLISHED_ROWS = {
    "open_ended_qa": 200,
    "summarization": 100,
    "chat": 147,
    "text_completion": 77,
    "heuristic_text_generation": 123,
}
PUBLISHED_LENGTH_ROWS = 123
DEFAULT_CONFIG = "all"  # every main row: the benchmark as the paper scores it


@functools.cache
def features() -> datasets.Features:
    """The config's schema (datasets is imported here, when a folder is built: reading the rows needs none)."""
    import datasets

    return datasets.Features(
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


def read_rows(
    path: Path, task: str, weights: dict[str, list[float]], ids: UniqueIds | None = None
) -> list[dict[str, Any]]:
    """Validate and convert one HelloBench JSONL file; `ids` spans the files whose ids must not repeat."""
    ids = ids or UniqueIds("id")
    rows = []
    for line, record in read_jsonl(path):
        row_id = require(path, line, record, "id", str)
        ids.add(path, line, row_id)
        subcategory = require(path, line, record, "category", str)
        instruction = require(path, line, record, "instruction", str)
        checklists = require_strings(path, line, record, "checklists")
        num_checklist = require_count(path, line, record, "num_checklist")
        requirements = record.get("requirements")
        if requirements is not None:
            requirements = require_strings(path, line, record, "requirements")
        raw_text = record.get("raw_text")
        if raw_text is not None and not isinstance(raw_text, str):
            raise SourceError(path, line, "raw_text", f"expected str or null, got {type(raw_text).__name__}")
        if subcategory not in weights:
            raise SourceError(path, line, "category", f"unknown subcategory {subcategory!r} (not in the weights)")
        if num_checklist != len(checklists):
            raise SourceError(
                path,
                line,
                "num_checklist",
                f"is {num_checklist} but there {'is' if len(checklists) == 1 else 'are'} "
                f"{counted(len(checklists), 'checklist')}",
            )
        if len(weights[subcategory]) != len(checklists):
            raise SourceError(
                path,
                line,
                "checklists",
                f"{counted(len(checklists), 'checklist')} but {counted(len(weights[subcategory]), 'weight')} for "
                f"{subcategory!r}",
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
                "raw_text": raw_text,
                "requirements": requirements,
                "length_constraint": length_constraint(record),
            }
        )
    return rows


def build_tables(source: Path, weights_path: Path | None = None, counts: CountCheck | None = None) -> list[ConfigTable]:
    """All configs; row counts must be the published ones unless `counts` allows a mismatch."""
    counts = counts or CountCheck(source)
    weights = load_weights(weights_path or source / WEIGHTS_FILE)
    main_ids = UniqueIds("id")  # the `all` config holds every main row, so ids are unique across tasks
    per_task = {}
    for task in TASKS:
        path = task_file(source, task)
        per_task[task] = read_rows(path, task, weights, main_ids)
        counts.expect(path, "rows", PUBLISHED_ROWS[task], len(per_task[task]))
    tables = [ConfigTable(task, rows, features()) for task, rows in per_task.items()]
    tables.append(ConfigTable("all", [row for rows in per_task.values() for row in rows], features()))
    for length in LENGTHS:
        path = length_file(source, length)
        rows = read_rows(path, "heuristic_text_generation", weights)
        counts.expect(path, "rows", PUBLISHED_LENGTH_ROWS, len(rows))
        tables.append(ConfigTable(f"length_constrained_{length}", rows, features()))
    main_rows = {row["id"]: row for rows in per_task.values() for row in rows}
    released = released_rows(source, main_rows, TASKS, counts)
    if released:  # none only in an edited copy built with allow_count_mismatch (the card lists the mismatch)
        tables.append(ConfigTable(RELEASED_CONFIG, released, released_features()))
    return tables


def card_spec(tables: list[ConfigTable]) -> CardSpec:
    everything = next(t for t in tables if t.name == "all").rows
    released = next((t.rows for t in tables if t.name == RELEASED_CONFIG), [])
    subcategories = Counter((row["task"], row["subcategory"]) for row in everything)
    return CardSpec(
        pretty_name="HelloBench",
        language=["en"],
        task_categories=["text-generation"],
        default_config=DEFAULT_CONFIG,
        tags=["long-form-generation", "llm-as-a-judge", "checklist-evaluation"],
        context={
            "upstream": UPSTREAM,
            "tasks": TASKS,
            "task_counts": Counter(row["task"] for row in everything),
            "subcategories": sorted(subcategories.items()),
            "num_subcategories": len({sub for _, sub in subcategories}),
            "released_config": RELEASED_CONFIG,
            "released_counts": released_summary(released) if released else {},
        },
    )


def build(
    source: str | Path | None = None,
    out: str | Path = "build/hellobench",
    weights: str | Path | None = None,
    overwrite: bool = False,
    allow_count_mismatch: bool = False,
    repo_id: str | None = None,
) -> Path:
    """Build the HelloBench dataset folder; `weights` replaces the shipped weighted_scores.txt.

    `overwrite` allows replacing an earlier build of another dataset (see `check_output_folder`);
    `allow_count_mismatch` builds an edited copy whose row counts differ from the published ones (the card lists
    the differences); `repo_id` (ORG/NAME) is the repo the card's code loads from (see `card.CardRepo`).
    """
    repo = CardRepo(NAME, repo_id)
    source_dir = resolve_source(NAME, source, UPSTREAM)
    weights_path = Path(weights) if weights else None
    keep = [source_dir, *([weights_path] if weights_path else [])]
    check_output_folder(out, NAME, overwrite, keep)
    counts = CountCheck(source_dir, allow_count_mismatch)
    tables = build_tables(source_dir, weights_path, counts)
    spec = card_spec(tables)
    spec.count_mismatches = counts.mismatches
    return write_dataset_folder(out, tables, spec, dataset=NAME, overwrite=overwrite, keep=keep, repo=repo)
