from __future__ import annotations

import datetime
import json
import re
from collections import Counter

import datasets
import pytest

from longform_eval.dataset_builder import SourceError, build
from longform_eval.dataset_builder.longgenbench_generator import LAYOUTS, generate_items, grid_xy
from longform_eval.dataset_builder.longgenbench_templates import SCENARIO_TEMPLATES

from .conftest import copy_source, folder_digest


@pytest.mark.parametrize("config,checks", [("short", 6205), ("long", 8215)])
def test_released_configs_load_with_their_counts(longgenbench_folder, config, checks):
    rows = datasets.load_dataset(str(longgenbench_folder), config, split="test")
    assert rows.num_rows == 400
    assert sum(len(c) for c in rows["checks"]) == checks
    assert Counter(rows["scenario"]) == {"diary": 100, "menu": 100, "skyscraper": 100, "urban_planning": 100}


def test_values_match_the_released_file(longgenbench_folder, shared_data):
    released = json.loads((shared_data / "longgenbench/Dataset/Dataset_long.json").read_text())
    rows = datasets.load_dataset(str(longgenbench_folder), "long", split="test")
    for index in (0, 150, 399):
        item, row = released[index], rows[index]
        assert row["prompt"] == item["prompt"] and row["prefix"] == item["prefix"]
        assert row["subtask_type"] == item["type"] and row["num_subtasks"] == item["number"]
        expected = [
            (kind, key, desc)
            for field, kind in (("checks_once", "single"), ("checks_range", "range"), ("checks_periodic", "periodic"))
            for key, desc in item[field].items()
        ]
        assert [(c["kind"], c["key"], c["description"]) for c in row["checks"]] == expected
        assert all(c["subtask"] == int(c["key"]) for c in row["checks"])


def test_zero_padded_keys_are_kept_and_parsed(longgenbench_folder):
    rows = datasets.load_dataset(str(longgenbench_folder), "long", split="test")
    padded = [c for r in rows for c in r["checks"] if c["key"] != str(c["subtask"])]
    assert len(padded) == 269
    assert all(c["key"].startswith("0") for c in padded)


def test_card_counts_the_known_quirks(longgenbench_folder):
    card = (longgenbench_folder / "README.md").read_text()
    assert "not the unrelated" in card and "Liu et al." in card
    assert "checks out of range: 2" in card
    assert "menu single events lost: 25" in card
    assert "zero padded keys: 269" in card
    assert "No license was declared upstream" in card


def test_non_integer_key_names_the_item_and_field(shared_data, tmp_path):
    source = copy_source(shared_data / "longgenbench", tmp_path / "src")
    path = source / "Dataset/Dataset_short.json"
    items = json.loads(path.read_text())
    items[5]["checks_range"]["week 3"] = "a trip"
    path.write_text(json.dumps(items))
    with pytest.raises(
        SourceError,
        match=r"Dataset_short\.json:item 5: field 'checks_range\['week 3'\]': "
        r"sub-task key is not an integer",
    ):
        build("longgenbench", source=source, out=tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_missing_field_names_the_item(shared_data, tmp_path):
    source = copy_source(shared_data / "longgenbench", tmp_path / "src")
    path = source / "Dataset/Dataset_long.json"
    items = json.loads(path.read_text())
    del items[42]["prefix"]
    path.write_text(json.dumps(items))
    with pytest.raises(SourceError, match=r"Dataset_long\.json:item 42: field 'prefix': missing"):
        build("longgenbench", source=source, out=tmp_path / "out")


def test_generated_configs_load(longgenbench_folder):
    for setting in ("short", "long"):
        rows = datasets.load_dataset(str(longgenbench_folder), f"generated_{setting}", split="test")
        assert rows.num_rows == 400
        assert rows[0]["id"] == f"generated_{setting}_diary_000"


def test_every_scenario_has_20_or_more_templates_per_instruction_type():
    for scenario, library in SCENARIO_TEMPLATES.items():
        for kind in ("single", "range", "periodic"):
            assert len(set(library[kind])) >= 20, (scenario, kind)


def day_of(text: str) -> int:
    date = datetime.datetime.strptime(re.sub(r"(\d+)(st|nd|rd|th)", r"\1", text) + " 2018", "%B %d %Y")
    return date.timetuple().tm_yday


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("setting", ["short", "long"])
def test_generated_items_are_consistent_by_construction(seed, setting):
    for item in generate_items(setting, seed=seed, per_scenario=25):
        n = item["num_subtasks"]
        kinds = Counter(c["kind"] for c in item["checks"])
        positions = [c["subtask"] for c in item["checks"]]
        assert kinds["single"] == 5 and kinds["range"] >= 2 and kinds["periodic"] >= 2
        assert len(positions) == len(set(positions)), "a position was given two uses"
        assert all(1 <= p <= n for p in positions)
        assert all(c["key"] == str(c["subtask"]) for c in item["checks"])
        ranges = sorted(c["subtask"] for c in item["checks"] if c["kind"] == "range")
        assert ranges == list(range(ranges[0], ranges[-1] + 1)), "ranges are contiguous, inside 1..n"
        assert item["prompt"].endswith("*** started ***\n" + item["prefix"])
        layout = LAYOUTS[(setting, item["scenario"])]
        if layout.grid_width:
            assert len({grid_xy(layout, p)[1] for p in ranges}) == 1, "a range stays in one row"
        if layout.unit == "Week":
            assert n == 52
        singles = [c for c in item["checks"] if c["kind"] == "single"]
        if item["scenario"] in ("diary", "menu"):
            dates = re.findall(r"on ([A-Z][a-z]+ \d+(?:st|nd|rd|th))", item["prompt"])
            assert len(dates) == 5
            expected = sorted((day_of(d) - 1) // 7 + 1 if layout.unit == "Week" else day_of(d) for d in dates)
            assert expected == sorted(c["subtask"] for c in singles), "each dated event is checked where it falls"


def test_same_seed_same_bytes_and_other_seeds_differ(shared_data, longgenbench_folder, tmp_path):
    again = build("longgenbench", source=shared_data / "longgenbench", out=tmp_path / "again", generate=True, seed=7)
    assert folder_digest(again) == folder_digest(longgenbench_folder)
    assert generate_items("short", seed=8, per_scenario=3) != generate_items("short", seed=7, per_scenario=3)
