"""TencentLLMEval: ~3,000 Chinese and ~2,900 English real-world questions, and the area -> task tree."""

from __future__ import annotations

import io
from collections import Counter
from pathlib import Path
from typing import Any

import datasets

from longform_eval.common.errors import SourceError
from longform_eval.common.guarded import SOURCE, read_bytes
from longform_eval.common.install import missing_extra_message
from longform_eval.common.records import UniqueIds, read_json, read_jsonl, require, require_count

from .card import CardRepo, CardSpec
from .counts import CountCheck
from .folder import check_output_folder, write_dataset_folder
from .sources import Upstream, resolve_source
from .tables import ConfigTable

NAME = "tencentllmeval"
UPSTREAM = Upstream("xsysigma/TencentLLMEval", "001bef7fc0063e057571eefb21a381d3826b9f08")
LANGUAGES = {"en": "english", "zh": "chinese"}
XLSX_QUESTIONS = {"en": "English Datasets.xlsx", "zh": "Chinese_Datasets.xlsx"}
XLSX_TREES = {"en": "Task_Tree_English.xlsx", "zh": "Task_Tree_Chinese.xlsx"}
# Column order of the upstream sheets (row 1 is the header).
XLSX_QUESTION_COLUMNS = {
    "en": ("level1", "level2", "question", "reference_answer", "prompt_id"),
    "zh": ("prompt_id", "level1", "level2", "question", "reference_answer"),
}
LITERAL_NEWLINE = "\\n"
# Published in the upstream sheets (see SOURCE.md): rows and distinct prompt ids per language. Prompt ids
# repeat (the repeats are kept and counted in the card); a row is identified by its sheet row.
PUBLISHED_ROWS = {"en": 2904, "zh": 3007}
DEFAULT_CONFIG = "en"  # the English questions (the Chinese originals are `zh`)
PUBLISHED_PROMPT_IDS = {"en": 2890, "zh": 2964}
PUBLISHED_TREE_TASKS = 109
PUBLISHED_TREE_AREAS = 6

QUESTION_FEATURES = datasets.Features(
    {
        "prompt_id": datasets.Value("string"),
        "area": datasets.Value("string"),
        "task": datasets.Value("string"),
        "question": datasets.Value("string"),
        "reference_answer": datasets.Value("string"),
        "language": datasets.Value("string"),
    }
)
TREE_FEATURES = datasets.Features(
    {
        "area": datasets.Value("string"),
        "task": datasets.Value("string"),
        "prompt_example": datasets.Value("string"),
        "note": datasets.Value("string"),
        "language": datasets.Value("string"),
    }
)


def real_newlines(text: str | None, language: str) -> str | None:
    """The Chinese sheet stores newlines as the two characters backslash + n; make them real."""
    if text is None or language != "zh":
        return text
    return text.replace(LITERAL_NEWLINE, "\n")


def question_row(path: Path, row: int, record: dict[str, Any], language: str) -> dict[str, Any]:
    for field in ("prompt_id", "level1", "level2", "question", "reference_answer"):
        if field not in record:
            raise SourceError(path, row, field, "missing")
    for field in ("prompt_id", "level1", "level2"):
        require(path, row, record, field, (str, type(None)))
    question = require(path, row, record, "question", str)
    answer = record["reference_answer"]
    return {
        "prompt_id": record["prompt_id"],
        "area": record["level1"],
        "task": record["level2"],
        "question": real_newlines(question, language),
        "reference_answer": real_newlines(None if answer is None else str(answer), language),
        "language": language,
    }


def read_questions(source: Path, language: str, counts: CountCheck | None = None) -> list[dict[str, Any]]:
    """The questions of one language; the row and distinct-id counts must be the published ones."""
    path, rows = question_rows(source, language)
    counts = counts or CountCheck(source)
    counts.expect(path, "rows", PUBLISHED_ROWS[language], len(rows))
    distinct = len({row["prompt_id"] for row in rows})
    counts.expect(path, "distinct prompt ids", PUBLISHED_PROMPT_IDS[language], distinct, "prompt_id")
    return rows


def question_rows(source: Path, language: str) -> tuple[Path, list[dict[str, Any]]]:
    derived = source / "derived" / f"{LANGUAGES[language]}_dataset.jsonl"
    if derived.is_file():
        sheet_row_ids = UniqueIds("xlsx_row", "sheet row")
        rows = []
        for line, record in read_jsonl(derived):
            if "xlsx_row" in record:
                sheet_row_ids.add(derived, line, require_count(derived, line, record, "xlsx_row"))
            rows.append(question_row(derived, line, record, language))
        return derived, rows
    path = source / XLSX_QUESTIONS[language]
    columns = XLSX_QUESTION_COLUMNS[language]
    return path, [
        question_row(path, row, dict(zip(columns, cells, strict=False)), language) for row, cells in xlsx_rows(path)
    ]


def read_tree(source: Path, language: str, counts: CountCheck | None = None) -> list[dict[str, Any]]:
    """The task tree of one language; each (area, task) once, as many as published."""
    path, rows = tree_rows(source, language)
    tasks = UniqueIds("level2", "task")
    for row_number, row in rows:
        tasks.add(path, row_number, (row["area"], row["task"]))
    counts = counts or CountCheck(source)
    counts.expect(path, "tasks", PUBLISHED_TREE_TASKS, len(rows), "level2")
    counts.expect(path, "areas", PUBLISHED_TREE_AREAS, len({row["area"] for _, row in rows}), "level1")
    return [row for _, row in rows]


def tree_rows(source: Path, language: str) -> tuple[Path, list[tuple[int | str, dict[str, Any]]]]:
    derived = source / "derived" / f"task_tree_{LANGUAGES[language]}.json"
    if derived.is_file():
        document = read_json(derived)
        nodes = document.get("nodes") if isinstance(document, dict) else None
        if not isinstance(nodes, list):
            raise SourceError(derived, None, "nodes", "expected a list of task-tree nodes")
        return derived, [(f"node {i}", tree_row(derived, f"node {i}", node, language)) for i, node in enumerate(nodes)]
    path = source / XLSX_TREES[language]
    rows, area = [], None
    for row, cells in xlsx_rows(path):
        area = cells[0] or area  # level 1 is a vertically merged cell
        if is_blank(cells[1]):
            continue  # one blank separator row inside an area
        note = cells[3] if len(cells) > 3 else None
        node = {"level1": area, "level2": cells[1], "prompt_example": cells[2], "note": note}
        rows.append((row, tree_row(path, row, node, language)))
    return path, rows


def tree_row(path: Path, row: int | str, node: dict[str, Any], language: str) -> dict[str, Any]:
    for field in ("level1", "level2"):
        if not isinstance(node.get(field), str):
            raise SourceError(path, row, field, "missing or not a string")
    if not isinstance(node.get("prompt_example"), (str, type(None))):
        raise SourceError(path, row, "prompt_example", "expected a string or null")
    return {
        "area": node["level1"],
        "task": node["level2"],
        "prompt_example": real_newlines(node["prompt_example"], language),
        "note": node.get("note"),
        "language": language,
    }


def xlsx_rows(path: Path) -> list[tuple[int, list[Any]]]:
    """Data rows (1-based sheet row, cell values) of the first sheet; blank rows are skipped."""
    if not path.is_file():
        raise SourceError(path, None, None, "file not found (neither the xlsx nor derived/ JSON is present)")
    try:
        import openpyxl
    except ImportError as error:
        raise ImportError(missing_extra_message(f"Reading {path.name} needs openpyxl:", "xlsx")) from error
    data = read_bytes(path, SOURCE, decompress=False)  # a regular file within the source ceiling, read once
    try:
        return worksheet_rows(openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True))
    except Exception as error:  # openpyxl, zipfile and XML parsers raise many kinds on a damaged file
        reason = f"{type(error).__name__}: {error}"
        raise SourceError(path, None, None, f"not a readable xlsx workbook ({reason})") from error


def worksheet_rows(workbook: Any) -> list[tuple[int, list[Any]]]:
    try:
        sheet = workbook.worksheets[0]
        rows = []
        for number, cells in enumerate(sheet.iter_rows(min_row=2, values_only=True), start=2):
            values = [str(c) if isinstance(c, (int, float)) else c for c in cells]
            if not all(is_blank(v) for v in values):
                rows.append((number, values))
        return rows
    finally:
        workbook.close()


def is_blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def question_summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    ids = Counter(row["prompt_id"] for row in rows)
    repeated = {k: n for k, n in ids.items() if n > 1}
    return {
        "rows": len(rows),
        "distinct_ids": len(ids),
        "repeated_ids": len(repeated),
        "rows_with_repeated_ids": sum(repeated.values()),
        "na_answers": sum(row["reference_answer"] == "NA" for row in rows),
        "questions_with_newlines": sum("\n" in row["question"] for row in rows),
        "areas": Counter(row["area"] for row in rows).most_common(),
    }


def card_spec(tables: list[ConfigTable]) -> CardSpec:
    return CardSpec(
        pretty_name="TencentLLMEval",
        license_name="tencentllmeval-academic-research-only",
        license_link=f"{UPSTREAM.url}/blob/{UPSTREAM.commit}/README.md",
        language=["en", "zh"],
        task_categories=["text-generation", "question-answering"],
        default_config=DEFAULT_CONFIG,
        tags=["human-aligned-evaluation", "pairwise-evaluation"],
        context={
            "upstream": UPSTREAM,
            "question_summaries": {t.name: question_summary(t.rows) for t in tables if t.name in LANGUAGES},
            "tree_summaries": {
                t.name: {"tasks": len(t.rows), "areas": Counter(r["area"] for r in t.rows).most_common()}
                for t in tables
                if t.name.startswith("task_tree")
            },
        },
    )


def build(
    source: str | Path | None = None,
    out: str | Path = "build/tencentllmeval",
    overwrite: bool = False,
    allow_count_mismatch: bool = False,
    repo_id: str | None = None,
) -> Path:
    """Build the questions (`en`, `zh`) and the task trees; repeated prompt ids and NA answers are kept.

    `allow_count_mismatch` builds an edited copy whose counts differ from the published ones (the card lists
    the differences); `repo_id` (ORG/NAME) is the repo the card's code loads from (see `card.CardRepo`).
    """
    repo = CardRepo(NAME, repo_id)
    source_dir = resolve_source(NAME, source, UPSTREAM)
    check_output_folder(out, NAME, overwrite, [source_dir])
    counts = CountCheck(source_dir, allow_count_mismatch)
    tables = [ConfigTable(lang, read_questions(source_dir, lang, counts), QUESTION_FEATURES) for lang in LANGUAGES]
    tables += [
        ConfigTable(f"task_tree_{lang}", read_tree(source_dir, lang, counts), TREE_FEATURES) for lang in LANGUAGES
    ]
    spec = card_spec(tables)
    spec.count_mismatches = counts.mismatches
    return write_dataset_folder(out, tables, spec, dataset=NAME, overwrite=overwrite, keep=[source_dir], repo=repo)
