"""One config of a dataset folder: its rows and their explicit schema, stored as `<config>/test.parquet`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import datasets

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
        import datasets

        return datasets.Dataset.from_list(self.rows, features=self.features, split=datasets.Split.TEST)
