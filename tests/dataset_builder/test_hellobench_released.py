"""HelloBench's config `released_responses`: upstream's released responses of seven models, joined to the main prompts
on `id`, with their published counts and every record checked against its prompt."""

from __future__ import annotations

import gzip
import json
from collections import Counter
from pathlib import Path

import datasets
import pytest
import yaml

from longform_eval.dataset_builder import SourceError, build
from longform_eval.dataset_builder.hellobench_released import RELEASED_MODELS

from .conftest import folder_digest, linked_source

RELEASED = "generations/main_exp"
PER_MODEL = dict.fromkeys(RELEASED_MODELS, 647) | {"gemma2_27b": 619}  # gemma2_27b: 75 summaries, 74 completions


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in gzip.decompress(path.read_bytes()).decode("utf-8").splitlines()]


def rewrite(path: Path, lines: list[dict]) -> None:
    """Replace a linked released file by an edited copy."""
    path.unlink()
    path.write_bytes(gzip.compress("".join(json.dumps(r) + "\n" for r in lines).encode("utf-8")))


def released_source(shared_data: Path, tmp_path: Path) -> Path:
    return linked_source(shared_data / "hellobench", tmp_path / "src")


def test_released_responses_join_the_main_prompts_with_their_published_counts(hellobench_folder, shared_data):
    released = datasets.load_dataset(str(hellobench_folder), "released_responses", split="test")
    prompts = {row["id"]: row for row in datasets.load_dataset(str(hellobench_folder), "all", split="test")}
    assert list(released.features) == ["model", "id", "task", "subcategory", "response"]
    assert Counter(released["model"]) == PER_MODEL and released.num_rows == 4501
    assert len({(row["model"], row["id"]) for row in released}) == released.num_rows
    assert all(
        (prompts[r["id"]]["task"], prompts[r["id"]]["subcategory"]) == (r["task"], r["subcategory"]) for r in released
    )
    source = records(shared_data / "hellobench" / RELEASED / "qwen2_7b/chat_results.jsonl.gz")[5]
    (row,) = [r for r in released if (r["model"], r["id"]) == ("qwen2_7b", source["id"])]
    assert row["response"] == source["response"] and row["task"] == "chat"


def test_released_responses_is_one_more_config_and_not_the_default(hellobench_folder):
    names = datasets.get_dataset_config_names(str(hellobench_folder))
    assert len(names) == 11 and names[-1] == "released_responses" and "all" in names
    header = yaml.safe_load((hellobench_folder / "README.md").read_text().split("---\n")[1])
    (config,) = [c for c in header["configs"] if c["config_name"] == "released_responses"]
    assert not config.get("default") and config["data_files"] == [
        {"split": "test", "path": "released_responses/test.parquet"}
    ]


def test_upstreams_layout_of_plain_files_gives_the_same_rows(hellobench_folder, shared_data, tmp_path):
    source = linked_source(shared_data / "hellobench", tmp_path / "src")
    for path in sorted((source / RELEASED).glob("*/*.jsonl.gz")):
        target = source / "results" / RELEASED / path.parent.name / path.name.removesuffix(".gz")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(gzip.decompress(path.read_bytes()))
        path.unlink()
    (source / "generations/main_exp").rename(tmp_path / "moved")  # only upstream's layout is left
    out = build("hellobench", source=source, out=tmp_path / "out")
    parquet = "released_responses/test.parquet"
    assert folder_digest(out)[parquet] == folder_digest(hellobench_folder)[parquet]


@pytest.mark.parametrize(
    "change,expected",
    [
        (lambda r: r[3].update(id="chat_999"), r"chat_results\.jsonl\.gz:4: field 'id': 'chat_999' is no main prompt"),
        (
            lambda r: r[3].update(id="text_completion_000"),
            r":4: field 'id': 'text_completion_000' is a prompt of text_completion, not of chat",
        ),
        (lambda r: r[3].update(instruction="Write a poem."), r":4: field 'instruction': differs from the instruction"),
        (lambda r: r[3].pop("response"), r"chat_results\.jsonl\.gz:4: field 'response': missing"),
        (lambda r: r.append(dict(r[0])), r":148: field 'id': duplicate id 'chat_\d+' \(first at line 1\)"),
        (lambda r: r.__delitem__(slice(50, None)), r"chat_results\.jsonl\.gz: expected 147 responses .*found 50"),
    ],
)
def test_a_bad_released_record_names_file_line_and_field(shared_data, tmp_path, change, expected):
    source = released_source(shared_data, tmp_path)
    path = source / RELEASED / "llama31_8b/chat_results.jsonl.gz"
    lines = records(path)
    change(lines)
    rewrite(path, lines)
    with pytest.raises(SourceError, match=expected):
        build("hellobench", source=source, out=tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_without_the_released_responses_the_build_stops_unless_it_is_an_edited_copy(shared_data, tmp_path):
    source = released_source(shared_data, tmp_path)
    (source / "generations").rename(tmp_path / "elsewhere")
    with pytest.raises(SourceError, match=r"generations/main_exp: expected 4501 responses of 7 models \(folder not"):
        build("hellobench", source=source, out=tmp_path / "out")
    out = build("hellobench", source=source, out=tmp_path / "out", allow_count_mismatch=True)
    assert "released_responses" not in datasets.get_dataset_config_names(str(out))
    card = (out / "README.md").read_text()
    assert "- `generations/main_exp`: 0 responses of 7 models (folder not found) (published: 4501)" in card
    assert "### Released responses" not in card
