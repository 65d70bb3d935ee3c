"""LongGenBench (Wu et al., ICLR 2025): diary, menu, skyscraper and urban-planning long-output items."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import datasets

from longform_eval.common.errors import SourceError
from longform_eval.common.records import UniqueIds, read_json, require, require_count

from .card import CardRepo, CardSpec
from .counts import CountCheck
from .folder import check_output_folder, write_dataset_folder
from .sources import Upstream, resolve_source
from .tables import ConfigTable

NAME = "longgenbench"
UPSTREAM = Upstream("mozhu621/LongGenBench", "62c0e869219c225671a0b8f50217b0cd836b882b")
SETTING_FILES = {"short": "Dataset/Dataset_short.json", "long": "Dataset/Dataset_long.json"}
DEFAULT_CONFIG = "short"  # the paper's main setting (16K-token outputs)
SCENARIO_OF_TYPE = {
    "Week": "diary",
    "Day": "diary",
    "Menu Week": "menu",
    "Menu Day": "menu",
    "Floor": "skyscraper",
    "Block": "urban_planning",
}
CHECK_KINDS = {"checks_once": "single", "checks_range": "range", "checks_periodic": "periodic"}
SINGLES_PER_ITEM = 5
SUBTASK_KEY = re.compile(r"[0-9]+")
SCENARIOS = tuple(dict.fromkeys(SCENARIO_OF_TYPE.values()))


@dataclass(frozen=True)
class Published:
    """What the released file of one setting holds."""

    items: int
    per_scenario: int
    checks: int


PUBLISHED = {"short": Published(400, 100, 6205), "long": Published(400, 100, 8215)}

CHECK = {
    "kind": datasets.Value("string"),
    "subtask": datasets.Value("int32"),
    "key": datasets.Value("string"),
    "description": datasets.Value("string"),
}
FEATURES = datasets.Features(
    {
        "id": datasets.Value("string"),
        "scenario": datasets.Value("string"),
        "setting": datasets.Value("string"),
        "prompt": datasets.Value("string"),
        "prefix": datasets.Value("string"),
        "subtask_type": datasets.Value("string"),
        "num_subtasks": datasets.Value("int32"),
        "checks": datasets.List(CHECK),
    }
)


def parse_checks(path: Path, row: str, record: dict[str, Any]) -> list[dict[str, Any]]:
    checks = []
    for field, kind in CHECK_KINDS.items():
        for key, description in require(path, row, record, field, dict).items():
            if not SUBTASK_KEY.fullmatch(key):
                raise SourceError(path, row, f"{field}[{key!r}]", "sub-task key is not an integer")
            subtask = int(key)
            if not isinstance(description, str):
                raise SourceError(path, row, f"{field}[{key!r}]", "description must be a string")
            checks.append({"kind": kind, "subtask": subtask, "key": key, "description": description})
    return checks


def read_setting(source: Path, setting: str, counts: CountCheck | None = None) -> list[dict[str, Any]]:
    """Validate and convert one released LongGenBench file; its counts must be the published ones."""
    path = source / SETTING_FILES[setting]
    items = read_json(path)
    if not isinstance(items, list):
        raise SourceError(path, None, None, "expected a JSON list of items")
    prompts = UniqueIds("prompt")  # the released items have no id: an item is known by its prompt
    rows, per_scenario = [], Counter()
    for index, record in enumerate(items):
        row = f"item {index}"
        if not isinstance(record, dict):
            raise SourceError(path, row, None, "expected a JSON object")
        subtask_type = require(path, row, record, "type", str)
        if subtask_type not in SCENARIO_OF_TYPE:
            raise SourceError(path, row, "type", f"unknown sub-task type {subtask_type!r}")
        scenario = SCENARIO_OF_TYPE[subtask_type]
        prompt = require(path, row, record, "prompt", str)
        prompts.add(path, row, prompt)
        rows.append(
            {
                "id": f"{setting}_{scenario}_{per_scenario[scenario]:03d}",
                "scenario": scenario,
                "setting": setting,
                "prompt": prompt,
                "prefix": require(path, row, record, "prefix", str),
                "subtask_type": subtask_type,
                "num_subtasks": require_count(path, row, record, "number"),
                "checks": parse_checks(path, row, record),
            }
        )
        per_scenario[scenario] += 1
    check_counts(path, PUBLISHED[setting], rows, per_scenario, counts or CountCheck(source))
    return rows


def check_counts(
    path: Path, published: Published, rows: list[dict[str, Any]], per_scenario: Counter[str], counts: CountCheck
) -> None:
    counts.expect(path, "items", published.items, len(rows))
    for scenario in SCENARIOS:
        counts.expect(path, f"{scenario} items", published.per_scenario, per_scenario[scenario], "type")
    counts.expect(path, "checks", published.checks, sum(len(row["checks"]) for row in rows))


def quirks(rows: list[dict[str, Any]]) -> dict[str, int]:
    """Count the known irregularities of the released items (kept as released for comparability)."""
    counts: Counter[str] = Counter()
    for row in rows:
        by_kind: dict[str, list[dict[str, Any]]] = {k: [] for k in CHECK_KINDS.values()}
        for check in row["checks"]:
            by_kind[check["kind"]].append(check)
            if not 1 <= check["subtask"] <= row["num_subtasks"]:
                counts["checks_out_of_range"] += 1
            if check["key"] != str(check["subtask"]):
                counts["zero_padded_keys"] += 1
        singles, ranges = by_kind["single"], by_kind["range"]
        if row["scenario"] == "menu" and len(singles) < SINGLES_PER_ITEM:
            counts["menu_items_with_lost_single_events"] += 1
            counts["menu_single_events_lost"] += SINGLES_PER_ITEM - len(singles)
        if row["scenario"] == "diary":
            counts["diary_merged_single_checks"] += sum(c["description"].count("birthday") > 1 for c in singles)
            if row["subtask_type"] == "Week" and "birthday on December 31" in row["prompt"]:
                counts["diary_dec31_birthdays_in_week_1"] += 1
        if not ranges:
            counts["items_with_empty_range"] += 1
        elif row["scenario"] != "urban_planning" and not contiguous([c["subtask"] for c in ranges]):
            counts["ranges_wrapping_the_year"] += 1
        if row["scenario"] in ("skyscraper", "urban_planning") and has_two_uses(row["checks"]):
            counts["items_with_a_position_given_two_uses"] += 1
    return {name: count for name, count in sorted(counts.items()) if count}


def contiguous(positions: list[int]) -> bool:
    ordered = sorted(positions)
    return ordered[-1] - ordered[0] + 1 == len(ordered)


def has_two_uses(checks: list[dict[str, Any]]) -> bool:
    uses: dict[int, set[str]] = {}
    for check in checks:
        uses.setdefault(check["subtask"], set()).add(check["description"])
    return any(len(descriptions) > 1 for descriptions in uses.values())


def card_spec(tables: list[ConfigTable]) -> CardSpec:
    return CardSpec(
        pretty_name="LongGenBench (Wu et al.)",
        license_name="longgenbench-no-license-declared",
        license_link=f"{UPSTREAM.url}/tree/{UPSTREAM.commit}",
        language=["en"],
        task_categories=["text-generation"],
        default_config=DEFAULT_CONFIG,
        tags=["long-form-generation", "instruction-following", "long-context"],
        context={
            "upstream": UPSTREAM,
            "summaries": {t.name: table_summary(t) for t in tables},
        },
    )


def table_summary(table: ConfigTable) -> dict[str, Any]:
    checks = Counter(check["kind"] for row in table.rows for check in row["checks"])
    return {
        "items": len(table.rows),
        "checks": sum(checks.values()),
        "checks_by_kind": dict(checks),
        "scenarios": dict(Counter((r["scenario"], r["subtask_type"], r["num_subtasks"]) for r in table.rows)),
        "quirks": quirks(table.rows),
    }


def build(
    source: str | Path | None = None,
    out: str | Path = "build/longgenbench",
    generate: bool = False,
    seed: int = 0,
    per_scenario: int = 100,
    overwrite: bool = False,
    allow_count_mismatch: bool = False,
    repo_id: str | None = None,
) -> Path:
    """Build the released configs `short` and `long`; with `generate`, add seeded fresh items too.

    `allow_count_mismatch` builds an edited copy whose counts differ from the published ones (the card lists
    the differences); the generated items are not checked, their counts are set by `per_scenario`.
    `repo_id` (ORG/NAME) is the repo the card's code loads from (see `card.CardRepo`).
    """
    repo = CardRepo(NAME, repo_id)
    source_dir = resolve_source(NAME, source, UPSTREAM)
    check_output_folder(out, NAME, overwrite, [source_dir])
    counts = CountCheck(source_dir, allow_count_mismatch)
    tables = [ConfigTable(setting, read_setting(source_dir, setting, counts), FEATURES) for setting in SETTING_FILES]
    if generate:
        from .longgenbench_generator import generate_items

        for setting in SETTING_FILES:
            rows = generate_items(setting, seed=seed, per_scenario=per_scenario)
            tables.append(ConfigTable(f"generated_{setting}", rows, FEATURES))
    spec = card_spec(tables)
    spec.context.update(generated=generate, seed=seed, per_scenario=per_scenario)
    spec.count_mismatches = counts.mismatches
    return write_dataset_folder(out, tables, spec, dataset=NAME, overwrite=overwrite, keep=[source_dir], repo=repo)
