"""HelloBench's released responses as the config `released_responses`: what seven models answered to the main prompts.

Read from upstream's `results/generations/main_exp/<model>/<task>_results.jsonl` (a local copy may keep them gzipped
as `generations/main_exp/<model>/<task>_results.jsonl.gz`). Each record's `id` must be a main row of its task, and its
`instruction` that row's instruction, so that the rows join the main configs on `id`; each file must hold its
published number of records.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from longform_eval.common.errors import SourceError
from longform_eval.common.records import UniqueIds, read_jsonl, require

from .counts import CountCheck

if TYPE_CHECKING:
    import datasets

RELEASED_CONFIG = "released_responses"
RELEASED_FOLDERS = ("generations/main_exp", "results/generations/main_exp")  # a local copy's, upstream's
SHORTER = {"gemma2_27b": {"summarization": 75, "text_completion": 74}}  # the only model that answered fewer prompts
RELEASED_MODELS = (
    "claude35",
    "gemma2_27b",
    "gpt4o_0806",
    "llama31_8b",
    "longwriter_9b",
    "mistral_large_api",
    "qwen2_7b",
)


@functools.cache
def released_features() -> datasets.Features:
    """The config's schema (datasets is imported here, when a folder is built: reading the rows needs none)."""
    import datasets

    return datasets.Features(
        {
            "model": datasets.Value("string"),
            "id": datasets.Value("string"),
            "task": datasets.Value("string"),
            "subcategory": datasets.Value("string"),
            "response": datasets.Value("string"),
        }
    )


def released_folder(source: Path) -> Path:
    """The folder of model folders in `source` (either layout); the local copy's name when there is neither."""
    found = [source / name for name in RELEASED_FOLDERS if (source / name).is_dir()]
    return found[0] if found else source / RELEASED_FOLDERS[0]


def released_file(folder: Path, model: str, task: str) -> Path:
    """One model's file of one task: the gzipped one where both are there (the gzipped name when neither is)."""
    paths = [folder / model / f"{task}_results.jsonl.gz", folder / model / f"{task}_results.jsonl"]
    return next((path for path in paths if path.is_file()), paths[0])


def published_count(model: str, task: str, main_counts: Mapping[str, int]) -> int:
    return SHORTER.get(model, {}).get(task, main_counts[task])


def released_rows(
    source: Path, main_rows: Mapping[str, Mapping[str, Any]], tasks: Sequence[str], counts: CountCheck
) -> list[dict[str, Any]]:
    """Every model's responses, model by model and task by task; `main_rows` are the main configs' rows by id."""
    folder = released_folder(source)
    main_counts = {task: sum(row["task"] == task for row in main_rows.values()) for task in tasks}
    if not folder.is_dir():
        published = sum(published_count(model, task, main_counts) for model in RELEASED_MODELS for task in tasks)
        counts.expect(folder, f"responses of {len(RELEASED_MODELS)} models (folder not found)", published, 0)
        return []
    rows = []
    for model in RELEASED_MODELS:
        ids = UniqueIds("id")  # a model answers each prompt once, across its task files
        for task in tasks:
            path = released_file(folder, model, task)
            found = read_released(path, (model, task), main_rows, ids, counts.allow_mismatch) if path.is_file() else []
            counts.expect(path, "responses", published_count(model, task, main_counts), len(found))
            rows += found
    return rows


def read_released(
    path: Path, of: tuple[str, str], main_rows: Mapping[str, Mapping[str, Any]], ids: UniqueIds, edited: bool
) -> list[dict[str, Any]]:
    """One file's rows (`of`: its model and task). A response to a prompt that an `edited` copy (built with
    allow_count_mismatch) left out is skipped: the file's count then differs, and the card says so."""
    model, task = of
    rows = []
    for line, record in read_jsonl(path):
        row_id = require(path, line, record, "id", str)
        ids.add(path, line, row_id)
        main = main_rows.get(row_id)
        if main is None and edited:
            continue
        if main is None or main["task"] != task:
            where = "no main prompt" if main is None else f"a prompt of {main['task']}, not of {task}"
            raise SourceError(path, line, "id", f"{row_id!r} is {where}: responses must join the main configs on id")
        if require(path, line, record, "instruction", str) != main["instruction"]:
            raise SourceError(path, line, "instruction", f"differs from the instruction of the main row {row_id!r}")
        response = require(path, line, record, "response", str)
        rows.append(
            {"model": model, "id": row_id, "task": task, "subcategory": main["subcategory"], "response": response}
        )
    return rows


def released_summary(rows: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """Responses per model, for the card."""
    return {model: sum(row["model"] == model for row in rows) for model in RELEASED_MODELS}
