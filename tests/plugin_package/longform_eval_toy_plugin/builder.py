"""Builder layer: the shipped source file (`data/words.jsonl`, or `--source DIR` holding one) -> a dataset folder
with one config, `default`, and its card."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import datasets

from longform_eval.dataset_builder.card import CardRepo, CardSpec
from longform_eval.dataset_builder.folder import check_output_folder, write_dataset_folder
from longform_eval.dataset_builder.tables import ConfigTable

NAME = "toyplug"
SOURCE_FILE = "words.jsonl"
FEATURES = datasets.Features({name: datasets.Value("string") for name in ("id", "kind", "text", "target")})


def source_file(source: str | Path | None) -> Path:
    folder = Path(source) if source is not None else Path(str(resources.files(__package__).joinpath("data")))
    path = folder / SOURCE_FILE
    if not path.is_file():
        raise FileNotFoundError(f"--source {folder}: no {SOURCE_FILE}")
    return path


def build(
    source: str | Path | None = None,
    out: str | Path = "build/toyplug",
    overwrite: bool = False,
    allow_count_mismatch: bool = False,
    repo_id: str | None = None,
) -> Path:
    """Build the toyplug dataset folder; the shipped file has no published count to check."""
    path = source_file(source)
    check_output_folder(out, NAME, overwrite, [path])
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    card = CardSpec(
        pretty_name="Toy words",
        language=["en"],
        task_categories=["text-generation"],
        default_config="default",
    )
    table = ConfigTable("default", rows, FEATURES)
    return write_dataset_folder(out, [table], card, NAME, overwrite, keep=[path], repo=CardRepo(NAME, repo_id))
