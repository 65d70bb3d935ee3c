"""LongBench-Write (Bai et al., LongWriter, ICLR 2025): 120 prompts with a required output length, and the
LongWrite-Ruler probe."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

import datasets

from longform_eval.common.errors import SourceError
from longform_eval.common.records import UniqueIds, read_jsonl, require, require_count

from .card import CardRepo, CardSpec
from .counts import CountCheck
from .folder import check_output_folder, write_dataset_folder
from .sources import Upstream, resolve_source
from .tables import ConfigTable

NAME = "longbench_write"
UPSTREAM = Upstream("THUDM/LongWriter", "3fcfdff43deceb49f7936c6bf25ad88d61df0bfa")
UPSTREAM_FOLDER = "evaluation"  # where the files sit in the upstream repository
CONFIG_FILES = {"all": "longbench_write.jsonl", "en": "longbench_write_en.jsonl", "ruler": "longwrite_ruler.jsonl"}
PUBLISHED_ROWS = {"all": 120, "en": 60, "ruler": 48}
DEFAULT_CONFIG = "all"  # the benchmark: Chinese and English prompts
ID_PREFIX = {"all": "lbw", "ruler": "ruler"}  # `en` rows keep the id of the same prompt in `all`
# Language detection: a prompt is "zh" when CJK characters are at least this share of its counted units (CJK
# characters + English words, the benchmark's own length units), else "en". On the release every prompt's share is
# 0 or above 0.45, so any threshold in (0, 0.45] gives the same labels (the card prints the lowest share above 0).
CJK_CHARACTER = re.compile(r"[\u4e00-\u9fff]")
ENGLISH_WORD = re.compile(r"\b[a-zA-Z]+\b")
ZH_SHARE = 0.25

FEATURES = datasets.Features(
    {
        "id": datasets.Value("string"),
        "prompt": datasets.Value("string"),
        "type": datasets.Value("string"),
        "required_length": datasets.Value("int32"),
        "language": datasets.Value("string"),
    }
)


def cjk_share(text: str) -> float:
    """CJK characters / (CJK characters + English words); 0 for a text with neither."""
    cjk, words = len(CJK_CHARACTER.findall(text)), len(ENGLISH_WORD.findall(text))
    return cjk / (cjk + words) if cjk + words else 0.0


def detect_language(text: str) -> str:
    return "zh" if cjk_share(text) >= ZH_SHARE else "en"


def source_folder(source: Path) -> Path:
    """The folder holding the files: the given one, or its `evaluation/` (a checkout or archive of upstream)."""
    nested = source / UPSTREAM_FOLDER
    return nested if not (source / CONFIG_FILES["all"]).is_file() and nested.is_dir() else source


def read_config(source: Path, config: str, ids_by_prompt: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """Validate and convert one released file; `ids_by_prompt` maps the prompts of `all` to their ids."""
    path = source / CONFIG_FILES[config]
    prompts = UniqueIds("prompt")
    rows = []
    for line, record in read_jsonl(path):
        prompt = require(path, line, record, "prompt", str)
        if not prompt.strip():
            raise SourceError(path, line, "prompt", "empty prompt")
        prompts.add(path, line, prompt)
        row_type = require(path, line, record, "type", str)
        if not row_type.strip():
            raise SourceError(path, line, "type", "empty type")
        if ids_by_prompt is None:
            row_id = f"{ID_PREFIX[config]}_{len(rows):03d}"
        elif prompt in ids_by_prompt:
            row_id = ids_by_prompt[prompt]
        else:
            raise SourceError(
                path,
                line,
                "prompt",
                f"not a prompt of {CONFIG_FILES['all']} (the English subset's ids are those of `all`)",
            )
        rows.append(
            {
                "id": row_id,
                "prompt": prompt,
                "type": row_type,
                "required_length": require_count(path, line, record, "length"),
                "language": detect_language(prompt),
            }
        )
    return rows


def build_tables(source: Path, counts: CountCheck | None = None) -> list[ConfigTable]:
    """The configs `all`, `en` and `ruler`; row counts must be the published ones unless `counts` allows otherwise."""
    counts = counts or CountCheck(source)
    everything = read_config(source, "all")
    english = read_config(source, "en", {row["prompt"]: row["id"] for row in everything})
    ruler = read_config(source, "ruler")
    tables = [ConfigTable("all", everything, FEATURES), ConfigTable("en", english, FEATURES)]
    tables.append(ConfigTable("ruler", ruler, FEATURES))
    for table in tables:
        counts.expect(source / CONFIG_FILES[table.name], "rows", PUBLISHED_ROWS[table.name], len(table.rows))
    return tables


def table_summary(table: ConfigTable) -> dict[str, Any]:
    lengths = [row["required_length"] for row in table.rows]
    return {
        "rows": len(table.rows),
        "languages": dict(sorted(Counter(row["language"] for row in table.rows).items())),
        "types": dict(Counter(row["type"] for row in table.rows).most_common()),
        "lengths": dict(sorted(Counter(lengths).items())),
    }


def card_spec(tables: list[ConfigTable]) -> CardSpec:
    by_name = {table.name: table for table in tables}
    english = by_name["en"].rows
    shares = [cjk_share(row["prompt"]) for table in tables for row in table.rows]
    return CardSpec(
        pretty_name="LongBench-Write",
        language=["en", "zh"],
        task_categories=["text-generation"],
        default_config=DEFAULT_CONFIG,
        tags=["long-form-generation", "length-following", "llm-as-a-judge"],
        context={
            "upstream": UPSTREAM,
            "upstream_folder": UPSTREAM_FOLDER,
            "files": CONFIG_FILES,
            "zh_share": ZH_SHARE,
            "summaries": {table.name: table_summary(table) for table in tables},
            "english_detected_zh": [row for row in english if row["language"] != "en"],
            "lowest_cjk_share": min((s for s in shares if s > 0), default=0.0),
        },
    )


def build(
    source: str | Path | None = None,
    out: str | Path = "build/longbench_write",
    overwrite: bool = False,
    allow_count_mismatch: bool = False,
    repo_id: str | None = None,
) -> Path:
    """Build the LongBench-Write dataset folder (configs `all`, `en`, `ruler`).

    `source` is the folder of the three JSONL files (or an upstream checkout holding them in `evaluation/`);
    `allow_count_mismatch` builds an edited copy whose row counts differ from the published ones (the card lists
    the differences); `repo_id` (ORG/NAME) is the repo the card's code loads from (see `card.CardRepo`).
    """
    repo = CardRepo(NAME, repo_id)
    root = resolve_source(NAME, source, UPSTREAM)
    source_dir = source_folder(root)
    check_output_folder(out, NAME, overwrite, [root])
    counts = CountCheck(source_dir, allow_count_mismatch)
    tables = build_tables(source_dir, counts)
    spec = card_spec(tables)
    spec.count_mismatches = counts.mismatches
    return write_dataset_folder(out, tables, spec, dataset=NAME, overwrite=overwrite, keep=[root], repo=repo)
