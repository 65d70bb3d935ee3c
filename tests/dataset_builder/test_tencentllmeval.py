from __future__ import annotations

import shutil

import datasets
import pytest

from longform_eval.dataset_builder import build
from longform_eval.dataset_builder.tencentllmeval import read_questions, read_tree


@pytest.mark.parametrize("config,rows", [("en", 2904), ("zh", 3007), ("task_tree_en", 109), ("task_tree_zh", 109)])
def test_every_config_loads(tencent_folder, config, rows):
    assert datasets.load_dataset(str(tencent_folder), config, split="test").num_rows == rows


def test_literal_newlines_become_real_ones_and_duplicates_are_kept(tencent_folder):
    zh = datasets.load_dataset(str(tencent_folder), "zh", split="test")
    assert not any("\\n" in q for q in zh["question"])
    dialogue = zh.filter(lambda r: r["task"] == "多轮对话")
    assert dialogue.num_rows == 227
    assert sum("\n" in q for q in dialogue["question"]) == 226
    assert len(set(zh["prompt_id"])) == 2964
    assert zh["reference_answer"].count("NA") == 81
    assert set(zh["language"]) == {"zh"}


def test_card_carries_the_research_only_license_and_counts(tencent_folder):
    card = (tencent_folder / "README.md").read_text()
    assert "Academic research only" in card
    assert "| `zh` | 3007 | 2964 | 43 (86) | 81 |" in card


def test_xlsx_sources_give_the_same_rows_as_the_json_export(shared_data, tmp_path):
    pytest.importorskip("openpyxl")
    source = tmp_path / "xlsx_only"
    source.mkdir()
    for path in (shared_data / "tencentllmeval").glob("*.xlsx"):
        shutil.copy(path, source)
    json_source = shared_data / "tencentllmeval"
    for language in ("en", "zh"):
        assert read_questions(source, language) == read_questions(json_source, language)
        assert read_tree(source, language) == read_tree(json_source, language)
    out = build("tencentllmeval", source=source, out=tmp_path / "out")
    assert datasets.load_dataset(str(out), "task_tree_zh", split="test").num_rows == 109
