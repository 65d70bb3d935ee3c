"""LongBench-Write: configs all / en / ruler from the released files, detected language, the card, bad rows named."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import datasets
import pytest
from huggingface_hub import DatasetCard

from longform_eval.dataset_builder import SourceError, build
from longform_eval.dataset_builder.longbench_write import cjk_share, detect_language
from longform_eval.inference.cli import main

from .conftest import folder_digest

FILES = {"all": "longbench_write.jsonl", "en": "longbench_write_en.jsonl", "ruler": "longwrite_ruler.jsonl"}


@pytest.fixture(scope="module")
def lbw_folder(shared_data, tmp_path_factory) -> Path:
    return build("longbench_write", source=shared_data / "longbench_write", out=tmp_path_factory.mktemp("lbw") / "lbw")


def released(shared_data: Path, config: str) -> list[dict]:
    text = (shared_data / "longbench_write" / FILES[config]).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def source_copy(shared_data: Path, target: Path) -> Path:
    shutil.copytree(shared_data / "longbench_write", target)
    return target


def rewrite(path: Path, change) -> None:
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    change(records)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")


@pytest.mark.parametrize("config,rows", [("all", 120), ("en", 60), ("ruler", 48)])
def test_configs_load_with_the_published_counts(lbw_folder, config, rows):
    loaded = datasets.load_dataset(str(lbw_folder), config, split="test")
    assert loaded.num_rows == rows
    assert list(loaded.features) == ["id", "prompt", "type", "required_length", "language"]


@pytest.mark.parametrize("config", ["all", "en", "ruler"])
def test_values_match_the_released_files(lbw_folder, shared_data, config):
    rows = datasets.load_dataset(str(lbw_folder), config, split="test").to_list()
    source = released(shared_data, config)
    assert [(r["prompt"], r["type"], r["required_length"]) for r in rows] == [
        (s["prompt"], s["type"], s["length"]) for s in source
    ]
    assert len({r["id"] for r in rows}) == len(rows)


def test_english_rows_keep_the_ids_of_the_same_prompts_in_all(lbw_folder):
    everything = {r["prompt"]: r["id"] for r in datasets.load_dataset(str(lbw_folder), "all", split="test")}
    english = datasets.load_dataset(str(lbw_folder), "en", split="test")
    assert all(everything[r["prompt"]] == r["id"] for r in english)
    assert english[0]["id"] == "lbw_000" and english[59]["id"] == "lbw_116"


def test_ruler_is_eight_prompts_at_six_lengths(lbw_folder):
    ruler = datasets.load_dataset(str(lbw_folder), "ruler", split="test")
    assert Counter(ruler["required_length"]) == {n: 8 for n in (1000, 2000, 5000, 10000, 20000, 30000)}
    assert ruler[0]["id"] == "ruler_000" and Counter(ruler["language"]) == {"en": 24, "zh": 24}


def test_language_is_detected_from_the_prompt(lbw_folder):
    everything = datasets.load_dataset(str(lbw_folder), "all", split="test")
    english = datasets.load_dataset(str(lbw_folder), "en", split="test")
    assert Counter(everything["language"]) == {"zh": 61, "en": 59}
    # Upstream's English subset holds one prompt written in Chinese (it asks for an English article).
    assert [(r["id"], r["language"]) for r in english if r["language"] != "en"] == [("lbw_093", "zh")]
    assert english[[r["id"] for r in english].index("lbw_093")]["prompt"].startswith("帮我用英文写一篇")
    # Every English-subset prompt but that one is detected en; every detected-en prompt of `all` is in the subset.
    subset = set(english["prompt"])
    assert all(r["prompt"] in subset for r in everything if r["language"] == "en")


@pytest.mark.parametrize(
    "text,share,language",
    [
        ("Write a 1000-word China travel guide", 0.0, "en"),
        ("写一篇1000字的中国旅游指南", 1.0, "zh"),
        ("请以“fall in love”为题 写一篇英语作文", 11 / 14, "zh"),
        ("Translate 你好 into English please now", 2 / 7, "zh"),  # at least a quarter of the units
        ("Explain the word 爱 to a child in simple words please", 1 / 11, "en"),
        ("12345 !!!", 0.0, "en"),
    ],
)
def test_language_detection_rule(text, share, language):
    assert cjk_share(text) == pytest.approx(share) and detect_language(text) == language


def test_card_renders_with_source_license_citation_and_detection(lbw_folder):
    card = DatasetCard.load(lbw_folder / "README.md")
    assert card.data.license == "apache-2.0" and card.data.pretty_name == "LongBench-Write"
    assert [c["config_name"] for c in card.data.configs] == ["all", "en", "ruler"]
    text = card.text
    assert "https://github.com/THUDM/LongWriter at commit `3fcfdff43deceb49f7936c6bf25ad88d61df0bfa`" in text
    assert "Apache License 2.0, Copyright THU-KEG & Zhipu-AI" in text
    assert "@inproceedings{bai2025longwriter" in text and "arXiv:2408.07055" in text
    assert "| `all` | 120 | 61 | 59 |" in text and "| `ruler` | 48 | 24 | 24 |" in text
    assert "The lowest share above 0 among these prompts is\n  0.45" in text
    assert '- `lbw_093`: "帮我用英文写一篇关于郭沫若生平的文章，不少于4000字。"' in text
    assert "Built from an edited copy" not in text


def test_two_builds_give_identical_bytes(lbw_folder, shared_data, tmp_path):
    again = build("longbench_write", source=shared_data / "longbench_write", out=tmp_path / "again")
    assert folder_digest(again) == folder_digest(lbw_folder)


def test_an_upstream_checkout_layout_is_read_from_its_evaluation_folder(shared_data, tmp_path):
    source_copy(shared_data, tmp_path / "LongWriter" / "evaluation")
    out = build("longbench_write", source=tmp_path / "LongWriter", out=tmp_path / "out")
    assert datasets.load_dataset(str(out), "ruler", split="test").num_rows == 48


def test_a_cut_file_is_refused_and_builds_with_allow_count_mismatch(shared_data, tmp_path):
    source = source_copy(shared_data, tmp_path / "src")
    rewrite(source / FILES["ruler"], lambda records: records.__delitem__(slice(40, None)))
    with pytest.raises(
        SourceError, match=r"longwrite_ruler\.jsonl: expected 48 rows \(the published count\), found 40"
    ):
        build("longbench_write", source=source, out=tmp_path / "out")
    assert not (tmp_path / "out").exists()
    out = build("longbench_write", source=source, out=tmp_path / "out", allow_count_mismatch=True)
    assert datasets.load_dataset(str(out), "ruler", split="test").num_rows == 40
    assert "- `longwrite_ruler.jsonl`: 40 rows (published: 48)" in (out / "README.md").read_text()


@pytest.mark.parametrize(
    "file,line,change,message",
    [
        ("all", 3, {"length": "200"}, r"longbench_write\.jsonl:3: field 'length': expected int, got str"),
        ("all", 5, {"length": 0}, r"longbench_write\.jsonl:5: field 'length': expected a positive integer, got 0"),
        ("all", 7, {"length": True}, r"longbench_write\.jsonl:7: field 'length': expected int, got bool"),
        ("en", 2, {"type": 4}, r"longbench_write_en\.jsonl:2: field 'type': expected str, got int"),
        ("ruler", 9, {"prompt": "   "}, r"longwrite_ruler\.jsonl:9: field 'prompt': empty prompt"),
        ("en", 4, {"prompt": "A prompt of nowhere"}, r"longbench_write_en\.jsonl:4: field 'prompt': not a prompt of"),
    ],
)
def test_a_bad_row_names_the_file_line_and_field(shared_data, tmp_path, file, line, change, message):
    source = source_copy(shared_data, tmp_path / "src")
    rewrite(source / FILES[file], lambda records: records[line - 1].update(change))
    with pytest.raises(SourceError, match=message):
        build("longbench_write", source=source, out=tmp_path / "out")


def test_a_missing_field_and_a_repeated_prompt_are_named(shared_data, tmp_path):
    source = source_copy(shared_data, tmp_path / "src")
    rewrite(source / FILES["all"], lambda records: records[10].pop("type"))
    with pytest.raises(SourceError, match=r"longbench_write\.jsonl:11: field 'type': missing"):
        build("longbench_write", source=source, out=tmp_path / "out")
    source = source_copy(shared_data, tmp_path / "src2")
    rewrite(source / FILES["ruler"], lambda records: records[20].update(prompt=records[2]["prompt"]))
    with pytest.raises(
        SourceError, match=r"longwrite_ruler\.jsonl:21: field 'prompt': duplicate prompt .* \(first at line 3\)"
    ):
        build("longbench_write", source=source, out=tmp_path / "out")


def test_cli_builds_and_refuses_a_foreign_folder(shared_data, tmp_path, capsys):
    source = str(shared_data / "longbench_write")
    assert main(["build", "longbench_write", "--source", source, "--out", str(tmp_path / "out")]) == 0
    assert capsys.readouterr().out.strip() == str(tmp_path / "out")
    foreign = tmp_path / "notes"
    foreign.mkdir()
    (foreign / "mine.txt").write_text("keep me")
    assert main(["build", "longbench_write", "--source", source, "--out", str(foreign)]) == 2
    assert (foreign / "mine.txt").read_text() == "keep me"
