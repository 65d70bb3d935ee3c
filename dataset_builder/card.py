"""The README card of a dataset folder: the Hub's YAML metadata and a body rendered from a `longform_eval.cards`
template, whose code names where the dataset and its metrics load from.

The names (`CardRepo`): with a repo id ORG/NAME the code loads `ORG/NAME` and the metrics `ORG/<metric>`, where
`longform-eval publish --org ORG` puts them. Without one the card describes a local folder and says so: its code
loads `path/to/<dataset>` (a placeholder for the folder's path) and the metrics from their folders in a checkout of
longform-eval, `metric/<metric>`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import jinja2

from longform_eval.registry import dataset_declarations

from .hub import checked_repo_id
from .tables import SPLIT, ConfigTable

if TYPE_CHECKING:  # datasets and huggingface_hub's cards are imported when a card is rendered
    import datasets
    from huggingface_hub import DatasetCard

FOLDER_PLACEHOLDER = "path/to/{dataset}"
CHECKOUT_METRIC = "metric/{metric}"
CARDS_PACKAGE = "longform_eval.cards"  # the shared macros (`_*.j2`), and the templates of undeclared datasets
UNKNOWN_VERSION = "unknown"  # folder.package_version() where longform-eval is not installed: the install is not pinned


@dataclass
class CardSpec:
    """What the README card says: YAML metadata plus the template and its variables.

    `template` and `license` are given only for a dataset no benchmark declares; a declared one's card template and
    licence are its declaration's (stated once, there). `default_config` is the config `load_dataset` gives when none
    is named (`default: true` in `configs:`). `license_name` and `license_link` name a licence the Hub does not know
    (`license: other`), as its card spec asks.
    """

    pretty_name: str
    language: list[str]
    task_categories: list[str]
    default_config: str
    template: str | None = None
    license: str | None = None
    context: dict[str, Any] = field(default_factory=dict)
    tags: list[str] = field(default_factory=list)
    count_mismatches: list[str] = field(default_factory=list)
    license_name: str | None = None
    license_link: str | None = None


@dataclass(frozen=True)
class CardRepo:
    """Where the card's code loads from: the dataset's repo id, or a placeholder for the local folder."""

    dataset: str
    repo_id: str | None = None

    def __post_init__(self) -> None:
        if self.repo_id is not None:
            checked_repo_id(self.repo_id, "repo_id")

    @property
    def published(self) -> bool:
        return self.repo_id is not None

    @property
    def dataset_id(self) -> str:
        """What `load_dataset` is given: the repo id, or `path/to/<dataset>`, standing for the folder."""
        return self.repo_id or FOLDER_PLACEHOLDER.format(dataset=self.dataset)

    def metric(self, name: str) -> str:
        """What `evaluate.load` is given for metric `name`: `ORG/<name>` beside the repo, else its checkout folder."""
        if self.repo_id is None:
            return CHECKOUT_METRIC.format(metric=name)
        return f"{self.repo_id.split('/')[0]}/{name}"


def size_category(num_rows: int) -> str:
    for bound, label in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K")):
        if num_rows < bound:
            return label
    return "100K<n<1M"


def config_entries(tables: Sequence[ConfigTable], default: str) -> list[dict[str, Any]]:
    """The `configs:` of the card, `default` marked `default: true` (raises ValueError if it is not a config)."""
    if default not in [table.name for table in tables]:
        raise ValueError(f"default config {default!r} is not one of {[table.name for table in tables]}")
    entries = []
    for table in tables:
        entry = {"config_name": table.name, "data_files": [{"split": SPLIT, "path": table.data_path}]}
        entries.append({**entry, "default": True} if table.name == default else entry)
    return entries


def render_card(
    tables: Sequence[ConfigTable],
    infos: dict[str, datasets.DatasetInfo],
    card: CardSpec,
    repo: CardRepo,
    version: str,
) -> DatasetCard:
    """The card; its install line pins longform-eval to `version` (the package that built it), whose modules the
    metrics' code imports."""
    largest = max(len(table.rows) for table in tables)
    licence_names = {"license_name": card.license_name, "license_link": card.license_link}
    from huggingface_hub import DatasetCard, DatasetCardData

    card_data = DatasetCardData(
        pretty_name=card.pretty_name,
        license=card_licence(repo.dataset, card),
        language=card.language,
        task_categories=card.task_categories,
        size_categories=[size_category(largest)],
        tags=card.tags or None,
        configs=config_entries(tables, card.default_config),
        **{key: value for key, value in licence_names.items() if value is not None},
    )
    from datasets.info import DatasetInfosDict

    DatasetInfosDict(infos).to_dataset_card_data(card_data)
    package, template = card_template(repo.dataset, card.template)
    body = (
        card_environment(package)
        .get_template(template)
        .render(
            tables=tables,
            infos=infos,
            examples={t.name: example_of(t) for t in tables},
            count_mismatches=card.count_mismatches,
            repo=repo,
            default_config=card.default_config,
            rows={t.name: len(t.rows) for t in tables},
            package_version=None if version == UNKNOWN_VERSION else version,
            **card.context,
        )
    )
    return DatasetCard(f"---\n{card_data.to_yaml()}\n---\n\n{body.strip()}\n")


def card_licence(dataset: str, card: CardSpec) -> str:
    """The card's `license:`: the declaration's, or the CardSpec's for a dataset nothing declares."""
    declaration = dataset_declarations().get(dataset)
    licence = declaration.licence if declaration is not None else card.license
    if licence is None:
        raise ValueError(f"dataset {dataset!r}: no licence (declare the dataset, or give CardSpec.license)")
    return licence


def card_template(dataset: str, fallback: str | None) -> tuple[str, str]:
    """(package, file) of `dataset`'s card template: its declaration's `card`, else `fallback` among the cards."""
    declaration = dataset_declarations().get(dataset)
    if declaration is None:
        if fallback is None:
            raise ValueError(f"dataset {dataset!r}: no card template (declare the dataset, or give CardSpec.template)")
        return CARDS_PACKAGE, fallback
    package, _, file = declaration.card.partition(":")
    return package, file


def card_environment(package: str = CARDS_PACKAGE) -> jinja2.Environment:
    """Templates live in `package` (a plug-in's own), then in `longform_eval.cards`, whose `_*.j2` hold shared
    macros."""
    loaders = [jinja2.PackageLoader(name, ".") for name in dict.fromkeys([package, CARDS_PACKAGE])]
    environment = jinja2.Environment(
        loader=jinja2.ChoiceLoader(loaders),
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
