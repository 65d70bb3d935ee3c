"""Write a Hub-ready dataset folder (parquet per config + README card), atomically and reproducibly."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import datasets
import jinja2
from datasets.info import DatasetInfosDict
from datasets.utils import logging as datasets_logging
from huggingface_hub import DatasetCard, DatasetCardData

SPLIT = "test"


@dataclass
class ConfigTable:
    """One config of a dataset: its rows and their explicit schema."""

    name: str
    rows: list[dict[str, Any]]
    features: datasets.Features

    @property
    def data_path(self) -> str:
        return f"{self.name}/{SPLIT}.parquet"

    def to_dataset(self) -> datasets.Dataset:
        return datasets.Dataset.from_list(self.rows, features=self.features, split=datasets.Split.TEST)


@dataclass
class CardSpec:
    """What the README card says: YAML metadata plus the template and its variables."""

    template: str
    pretty_name: str
    license: str
    language: list[str]
    task_categories: list[str]
    context: dict[str, Any] = field(default_factory=dict)
    tags: list[str] = field(default_factory=list)


def size_category(num_rows: int) -> str:
    for bound, label in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K")):
        if num_rows < bound:
            return label
    return "100K<n<1M"


def write_dataset_folder(out: str | Path, tables: Sequence[ConfigTable], card: CardSpec) -> Path:
    """Build the folder in a temporary sibling and move it into place only when complete."""
    out = Path(out).resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}.tmp-"))
    try:
        infos = {table.name: write_table(staging, table) for table in tables}
        render_card(tables, infos, card).save(staging / "README.md")
        staging.chmod(0o755)
        replace_folder(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return out


def write_table(folder: Path, table: ConfigTable) -> datasets.DatasetInfo:
    path = folder / table.data_path
    path.parent.mkdir(parents=True, exist_ok=True)
    dataset = table.to_dataset()
    was_disabled = not datasets_logging.is_progress_bar_enabled()
    datasets_logging.disable_progress_bar()
    try:
        dataset.to_parquet(str(path))
    finally:
        if not was_disabled:
            datasets_logging.enable_progress_bar()
    num_bytes = dataset.data.nbytes
    splits = datasets.SplitDict()
    splits.add(datasets.SplitInfo(name=SPLIT, num_bytes=num_bytes, num_examples=dataset.num_rows))
    return datasets.DatasetInfo(
        features=table.features,
        splits=splits,
        download_size=path.stat().st_size,
        dataset_size=num_bytes,
    )


def render_card(tables: Sequence[ConfigTable], infos: dict[str, datasets.DatasetInfo], card: CardSpec) -> DatasetCard:
    largest = max(len(table.rows) for table in tables)
    card_data = DatasetCardData(
        pretty_name=card.pretty_name,
        license=card.license,
        language=card.language,
        task_categories=card.task_categories,
        size_categories=[size_category(largest)],
        tags=card.tags or None,
        configs=[{"config_name": t.name, "data_files": [{"split": SPLIT, "path": t.data_path}]} for t in tables],
    )
    DatasetInfosDict(infos).to_dataset_card_data(card_data)
    body = (
        card_environment()
        .get_template(card.template)
        .render(
            tables=tables,
            infos=infos,
            examples={t.name: example_of(t) for t in tables},
            **card.context,
        )
    )
    return DatasetCard(f"---\n{card_data.to_yaml()}\n---\n\n{body.strip()}\n")


def card_environment() -> jinja2.Environment:
    """Templates live in the `longform_eval.cards` package; `_*.j2` files hold shared macros."""
    environment = jinja2.Environment(
        loader=jinja2.PackageLoader("longform_eval.cards", "."),
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )
    environment.policies["json.dumps_kwargs"] = {"sort_keys": False, "ensure_ascii": False}
    return environment


def example_of(table: ConfigTable, max_chars: int = 300) -> dict[str, Any]:
    """The first row, with long strings shortened so the card stays readable."""

    def shorten(value: Any) -> Any:
        if isinstance(value, str) and len(value) > max_chars:
            return value[:max_chars] + " [...]"
        if isinstance(value, list):
            return [shorten(v) for v in value[:8]] + (["[...]"] if len(value) > 8 else [])
        if isinstance(value, dict):
            return {k: shorten(v) for k, v in value.items()}
        return value

    return shorten(table.rows[0]) if table.rows else {}


def replace_folder(staging: Path, out: Path) -> None:
    """Swap `staging` into `out`; an existing `out` is removed only after the new one is in place."""
    if not out.exists():
        staging.rename(out)
        return
    retired = out.with_name(f".{out.name}.old-{staging.name.rsplit('-', 1)[-1]}")
    out.rename(retired)
    staging.rename(out)
    shutil.rmtree(retired, ignore_errors=True)
