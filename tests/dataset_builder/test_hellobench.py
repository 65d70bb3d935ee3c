from __future__ import annotations

import ast
import json
import re
from collections import Counter

import datasets
import pytest

from longform_eval.dataset_builder import SourceError, build

from .conftest import copy_source, folder_digest

COUNTS = {
    "open_ended_qa": 200,
    "summarization": 100,
    "chat": 147,
    "text_completion": 77,
    "heuristic_text_generation": 123,
    "all": 647,
}


@pytest.mark.parametrize(
    "config",
    [*COUNTS, "length_constrained_2k", "length_constrained_4k", "length_constrained_8k", "length_constrained_16k"],
)
def test_every_config_loads_with_load_dataset(hellobench_folder, config):
    rows = datasets.load_dataset(str(hellobench_folder), config, split="test")
    assert rows.num_rows == COUNTS.get(config, 123)
    assert rows.features["checklist_weights"] == datasets.List(datasets.Value("float64"))
    assert all(abs(sum(w) - 100) < 1e-9 for w in rows["checklist_weights"])
    assert [len(c) for c in rows["checklists"]] == rows["num_checklist"]


def test_all_config_has_38_subcategories_and_checklist_counts(hellobench_folder):
    rows = datasets.load_dataset(str(hellobench_folder), "all", split="test")
    assert len(set(rows["subcategory"])) == 38
    per_task = Counter(rows["task"])
    assert per_task == {k: v for k, v in COUNTS.items() if k != "all"}
    sizes = {(r["task"], r["subcategory"] == "long_dialogue"): r["num_checklist"] for r in rows}
    assert sizes == {
        ("open_ended_qa", False): 7,
        ("summarization", False): 6,
        ("summarization", True): 7,
        ("chat", False): 6,
        ("text_completion", False): 5,
        ("heuristic_text_generation", False): 5,
    }


def test_values_match_the_source_files(hellobench_folder, shared_data):
    source = shared_data / "hellobench"
    lines = (source / "data/main_data/chat.jsonl").read_text().splitlines()
    raw = json.loads(lines[10])
    rows = datasets.load_dataset(str(hellobench_folder), "chat", split="test")
    row = rows[10]
    assert row["id"] == raw["id"]
    assert row["subcategory"] == raw["category"]
    assert row["instruction"] == raw["instruction"]
    assert row["checklists"] == raw["checklists"]
    assert row["raw_text"] == raw["raw_text"]
    text = (source / "weighted_scores.txt").read_text()
    weights = ast.literal_eval(text.split("=", 1)[1].strip())
    assert row["checklist_weights"] == weights[raw["category"]]  # parsed, stored as float64, read back: exact
    assert row["length_constraint"] is None


@pytest.mark.parametrize("length,words", [("2k", 2000), ("4k", 4000), ("8k", 8000), ("16k", 16000)])
def test_length_constraint_is_parsed_from_the_requirement(hellobench_folder, length, words):
    rows = datasets.load_dataset(str(hellobench_folder), f"length_constrained_{length}", split="test")
    assert set(rows["length_constraint"]) == {words}
    assert all(any(re.search(f"no shorter than {words} words", q) for q in r) for r in rows["requirements"])


def test_card_has_the_required_metadata_and_sections(hellobench_folder):
    card = (hellobench_folder / "README.md").read_text()
    for key in (
        "configs:",
        "dataset_info:",
        "license: mit",
        "language:",
        "task_categories:",
        "size_categories:",
        "pretty_name: HelloBench",
    ):
        assert key in card
    for section in (
        "## Dataset Summary",
        "## Supported Tasks",
        "## Dataset Structure",
        "### Data Fields",
        "### Data Splits",
        "## Dataset Creation",
        "## Known Limitations",
        "## License",
        "```bibtex",
        "d403282968b0a61a4963a73c631d3fc1318f17d7",
    ):
        assert section in card
    assert card.count("\n### `") >= 10  # one example per config


def test_building_twice_gives_identical_bytes(hellobench_folder, shared_data, tmp_path):
    again = build("hellobench", source=shared_data / "hellobench", out=tmp_path / "again")
    assert folder_digest(again) == folder_digest(hellobench_folder)


def corrupt_line(path, index, change):
    lines = path.read_text().splitlines()
    record = json.loads(lines[index])
    change(record)
    lines[index] = json.dumps(record)
    path.write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize(
    "change,expected",
    [
        (lambda r: r.pop("instruction"), r"chat\.jsonl:4: field 'instruction': missing"),
        (lambda r: r.update(category="Poetry"), r"chat\.jsonl:4: field 'category': unknown subcategory 'Poetry'"),
        (
            lambda r: r.update(checklists=r["checklists"][:-1], num_checklist=5),
            r"chat\.jsonl:4: field 'checklists': 5 checklists but 6 weights",
        ),
        (lambda r: r.update(num_checklist=9), r"chat\.jsonl:4: field 'num_checklist': is 9 but there are 6"),
    ],
)
def test_bad_rows_name_file_line_and_field(shared_data, tmp_path, change, expected):
    source = copy_source(shared_data / "hellobench", tmp_path / "src")
    corrupt_line(source / "data/main_data/chat.jsonl", 3, change)
    out = tmp_path / "out"
    with pytest.raises(SourceError, match=expected):
        build("hellobench", source=source, out=out)
    assert not out.exists()
    assert list(tmp_path.glob(".out*")) == []


def test_weights_not_summing_to_100_name_the_line(shared_data, tmp_path):
    source = copy_source(shared_data / "hellobench", tmp_path / "src")
    weights = source / "weighted_scores.txt"
    weights.write_text(weights.read_text().replace("14.816357060044538", "24.816357060044538"))
    with pytest.raises(SourceError, match=r"weighted_scores\.txt:2: field 'travel': weights sum to 110\.0"):
        build("hellobench", source=source, out=tmp_path / "out")


def test_a_failed_rebuild_keeps_the_previous_folder(shared_data, tmp_path):
    source = copy_source(shared_data / "hellobench", tmp_path / "src")
    out = build("hellobench", source=source, out=tmp_path / "out")
    before = folder_digest(out)
    (source / "data/main_data/summarization.jsonl").write_text('{"id": "x"\n')
    with pytest.raises(SourceError, match=r"summarization\.jsonl:1: invalid JSON"):
        build("hellobench", source=source, out=out)
    assert folder_digest(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "src"]


def test_custom_weights_file_replaces_the_shipped_one(shared_data, tmp_path):
    from longform_eval.dataset_builder.hellobench_weights import dump_weights, load_weights

    weights = load_weights(shared_data / "hellobench/weighted_scores.txt")
    weights["report_write"] = [100 / 6] * 6
    custom = tmp_path / "fitted.txt"
    dump_weights(weights, custom)
    out = build("hellobench", source=shared_data / "hellobench", out=tmp_path / "out", weights=custom)
    rows = datasets.load_dataset(str(out), "chat", split="test")
    # Written with repr, parsed and stored as float64, read back: the same doubles, bit for bit.
    assert rows.filter(lambda r: r["subcategory"] == "report_write")[0]["checklist_weights"] == [100 / 6] * 6
