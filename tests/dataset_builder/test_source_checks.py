"""Released files are checked against their published counts, unique ids and value types; bad files are named."""

from __future__ import annotations

import json
import re
from pathlib import Path

import datasets
import pytest

from longform_eval.dataset_builder import SourceError, build
from longform_eval.inference.cli import main

from .conftest import linked_source

CHAT = "data/main_data/chat.jsonl"
SHORT = "Dataset/Dataset_short.json"
ENGLISH = "derived/english_dataset.jsonl"
TREE_ZH = "derived/task_tree_chinese.json"
LENGTH_4K = "data/length_constrained_data/heuristic_text_generation_4k.jsonl"


def keep_lines(path: Path, count: int) -> None:
    path.write_text("".join(path.read_text().splitlines(keepends=True)[:count]))


def edit_items(path: Path, change) -> None:
    items = json.loads(path.read_text())
    change(items)
    path.write_text(json.dumps(items))


def test_a_cut_file_is_refused_with_expected_and_found_counts(shared_data, tmp_path):
    source = linked_source(shared_data / "hellobench", tmp_path / "src", CHAT)
    keep_lines(source / CHAT, 50)
    with pytest.raises(SourceError, match=r"chat\.jsonl: expected 147 rows \(the published count\), found 50"):
        build("hellobench", source=source, out=tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_an_edited_copy_builds_with_allow_count_mismatch_and_the_card_says_so(shared_data, tmp_path):
    source = linked_source(shared_data / "hellobench", tmp_path / "src", CHAT)
    keep_lines(source / CHAT, 50)
    out = build("hellobench", source=source, out=tmp_path / "out", allow_count_mismatch=True)
    assert datasets.load_dataset(str(out), "chat", split="test").num_rows == 50
    card = (out / "README.md").read_text()
    assert "Built from an edited copy, not the release" in card
    assert "- `data/main_data/chat.jsonl`: 50 rows (published: 147)" in card


def test_the_cli_takes_allow_count_mismatch(shared_data, tmp_path, capsys):
    source = linked_source(shared_data / "hellobench", tmp_path / "src", LENGTH_4K)
    keep_lines(source / LENGTH_4K, 120)
    command = ["build", "hellobench", "--source", str(source), "--out", str(tmp_path / "out")]
    assert main(command) == 2
    assert (
        "heuristic_text_generation_4k.jsonl: expected 123 rows (the published count), found 120"
        in capsys.readouterr().err
    )
    assert main([*command, "--allow-count-mismatch"]) == 0
    assert f"`{LENGTH_4K}`: 120 rows (published: 123)" in (tmp_path / "out" / "README.md").read_text()


@pytest.mark.parametrize("allow", [False, True])
def test_a_duplicate_id_names_the_file_both_lines_and_the_id(shared_data, tmp_path, allow):
    source = linked_source(shared_data / "hellobench", tmp_path / "src", CHAT)
    lines = (source / CHAT).read_text().splitlines(keepends=True)
    repeated = json.loads(lines[2])["id"]
    (source / CHAT).write_text("".join(lines[:147] + lines[2:7]))
    with pytest.raises(
        SourceError, match=rf"chat\.jsonl:148: field 'id': duplicate id '{repeated}' \(first at line 3\)"
    ):
        build("hellobench", source=source, out=tmp_path / "out", allow_count_mismatch=allow)


def test_an_id_repeated_in_another_task_file_names_both_files(shared_data, tmp_path):
    source = linked_source(shared_data / "hellobench", tmp_path / "src", CHAT)
    first = (shared_data / "hellobench/data/main_data/open_ended_qa.jsonl").read_text().splitlines()[0]
    repeated = json.loads(first)["id"]
    lines = (source / CHAT).read_text().splitlines(keepends=True)
    (source / CHAT).write_text("".join([*lines[:10], first + "\n", *lines[11:]]))
    with pytest.raises(
        SourceError,
        match=rf"chat\.jsonl:11: field 'id': duplicate id '{repeated}' \(first at line 1 of .*open_ended_qa\.jsonl\)",
    ):
        build("hellobench", source=source, out=tmp_path / "out")


def test_longgenbench_counts_items_scenarios_and_checks(shared_data, tmp_path):
    source = linked_source(shared_data / "longgenbench", tmp_path / "src", SHORT)
    edit_items(source / SHORT, lambda items: items[3]["checks_range"].popitem())
    with pytest.raises(
        SourceError, match=r"Dataset_short\.json: expected 6205 checks \(the published count\), found 6204"
    ):
        build("longgenbench", source=source, out=tmp_path / "out")
    edit_items(source / SHORT, lambda items: items.pop())
    with pytest.raises(
        SourceError, match=r"Dataset_short\.json: expected 400 items \(the published count\), found 399"
    ):
        build("longgenbench", source=source, out=tmp_path / "out")
    out = build("longgenbench", source=source, out=tmp_path / "out", allow_count_mismatch=True)
    card = (out / "README.md").read_text()
    assert "- `Dataset/Dataset_short.json`: 399 items (published: 400)" in card
    assert "- `Dataset/Dataset_short.json`: 99 urban_planning items (published: 100)" in card


def test_a_repeated_longgenbench_item_is_refused(shared_data, tmp_path):
    source = linked_source(shared_data / "longgenbench", tmp_path / "src", SHORT)
    edit_items(source / SHORT, lambda items: items.__setitem__(7, items[3]))
    with pytest.raises(
        SourceError, match=r"Dataset_short\.json:item 7: field 'prompt': duplicate prompt .*\(first at item 3\)"
    ):
        build("longgenbench", source=source, out=tmp_path / "out", allow_count_mismatch=True)


@pytest.mark.parametrize(
    "value,expected",
    [
        (0, "expected a positive integer, got 0"),
        (-5, "expected a positive integer, got -5"),
        (True, "expected int, got bool"),
    ],
)
def test_longgenbench_number_must_be_a_positive_integer(shared_data, tmp_path, value, expected):
    source = linked_source(shared_data / "longgenbench", tmp_path / "src", SHORT)
    edit_items(source / SHORT, lambda items: items[5].update(number=value))
    with pytest.raises(SourceError, match=rf"Dataset_short\.json:item 5: field 'number': {expected}$"):
        build("longgenbench", source=source, out=tmp_path / "out")


@pytest.mark.parametrize(
    "change,expected",
    [
        (lambda r: r.update(num_checklist=True), "field 'num_checklist': expected int, got bool"),
        (lambda r: r.update(num_checklist=0, checklists=[]), "field 'num_checklist': expected a positive integer"),
        (lambda r: r["checklists"].__setitem__(2, 7), r"field 'checklists\[2\]': expected str, got int"),
        (lambda r: r.update(requirements=[1]), r"field 'requirements\[0\]': expected str, got int"),
    ],
)
def test_hellobench_fields_of_the_wrong_kind_are_named(shared_data, tmp_path, change, expected):
    source = linked_source(shared_data / "hellobench", tmp_path / "src", CHAT)
    lines = (source / CHAT).read_text().splitlines(keepends=True)
    record = json.loads(lines[3])
    change(record)
    lines[3] = json.dumps(record) + "\n"
    (source / CHAT).write_text("".join(lines))
    with pytest.raises(SourceError, match=rf"chat\.jsonl:4: {expected}"):
        build("hellobench", source=source, out=tmp_path / "out")


def test_tencentllmeval_keeps_repeated_prompt_ids_but_not_repeated_sheet_rows(shared_data, tmp_path):
    source = linked_source(shared_data / "tencentllmeval", tmp_path / "src", ENGLISH)
    lines = (source / ENGLISH).read_text().splitlines(keepends=True)
    (source / ENGLISH).write_text("".join([*lines, lines[9]]))
    with pytest.raises(
        SourceError, match=r"english_dataset\.jsonl:2905: field 'xlsx_row': duplicate sheet row 11 \(first at line 10\)"
    ):
        build("tencentllmeval", source=source, out=tmp_path / "out", allow_count_mismatch=True)
    keep_lines(source / ENGLISH, 2900)
    with pytest.raises(
        SourceError, match=r"english_dataset\.jsonl: expected 2904 rows \(the published count\), found 2900"
    ):
        build("tencentllmeval", source=source, out=tmp_path / "out")
    out = build("tencentllmeval", source=source, out=tmp_path / "out", allow_count_mismatch=True)
    assert "- `derived/english_dataset.jsonl`: 2900 rows (published: 2904)" in (out / "README.md").read_text()


def test_tencentllmeval_tree_tasks_are_unique(shared_data, tmp_path):
    source = linked_source(shared_data / "tencentllmeval", tmp_path / "src", TREE_ZH)
    document = json.loads((source / TREE_ZH).read_text())
    document["nodes"][40] = dict(document["nodes"][12])
    (source / TREE_ZH).write_text(json.dumps(document, ensure_ascii=False))
    with pytest.raises(
        SourceError, match=r"task_tree_chinese\.json:node 40: field 'level2': duplicate task .*\(first at node 12\)"
    ):
        build("tencentllmeval", source=source, out=tmp_path / "out")


BAD_FILES = {
    "empty": (b"", ": empty file"),
    "blank": (b"\n  \n", ": empty file"),
    "binary": (b"PK\x03\x04\x14\x00\x00\x00\x08\x00", r":1: binary file \(NUL byte\)"),
    "latin-1": (b'{"id": "ok"}\n{"id": "caf\xe9"}\n', r":2: not UTF-8 text \(byte 0xe9 at offset 24\)"),
}


@pytest.mark.parametrize("kind", BAD_FILES)
@pytest.mark.parametrize(
    "dataset,relative",
    [
        ("hellobench", CHAT),
        ("hellobench", "weighted_scores.txt"),
        ("longgenbench", SHORT),
        ("tencentllmeval", ENGLISH),
        ("tencentllmeval", TREE_ZH),
    ],
)
def test_empty_and_binary_files_are_named(shared_data, tmp_path, dataset, relative, kind):
    source = linked_source(shared_data / dataset, tmp_path / "src", relative)
    content, expected = BAD_FILES[kind]
    (source / relative).write_bytes(content)
    with pytest.raises(SourceError, match=re.escape(Path(relative).name) + expected):
        build(dataset, source=source, out=tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_a_damaged_xlsx_is_named(shared_data, tmp_path):
    pytest.importorskip("openpyxl")
    source = tmp_path / "src"
    source.mkdir()
    for path in (shared_data / "tencentllmeval").glob("*.xlsx"):
        (source / path.name).symlink_to(path)
    (source / "English Datasets.xlsx").unlink()
    (source / "English Datasets.xlsx").write_bytes(b"\x00not a workbook")
    with pytest.raises(SourceError, match=r"English Datasets\.xlsx: not a readable xlsx workbook"):
        build("tencentllmeval", source=source, out=tmp_path / "out")
