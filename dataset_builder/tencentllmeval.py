"""TencentLLMEval: ~3,000 Chinese and ~2,900 English real-world questions, and the area -> task tree."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import datasets

from .errors import SourceError
from .folder import CardSpec, ConfigTable, write_dataset_folder
from .records import read_json, read_jsonl, require
from .sources import Upstream, resolve_source

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


def read_questions(source: Path, language: str) -> list[dict[str, Any]]:
    derived = source / "derived" / f"{LANGUAGES[language]}_dataset.jsonl"
    if derived.is_file():
        return [question_row(derived, line, record, language) for line, record in read_jsonl(derived)]
    path = source / XLSX_QUESTIONS[language]
    columns = XLSX_QUESTION_COLUMNS[language]
    return [
        question_row(path, row, dict(zip(columns, cells, strict=False)), language) for row, cells in xlsx_rows(path)
    ]


def read_tree(source: Path, language: str) -> list[dict[str, Any]]:
    derived = source / "derived" / f"task_tree_{LANGUAGES[language]}.json"
    if derived.is_file():
        document = read_json(derived)
        nodes = document.get("nodes") if isinstance(document, dict) else None
        if not isinstance(nodes, list):
            raise SourceError(derived, None, "nodes", "expected a list of task-tree nodes")
        return [tree_row(derived, f"node {i}", node, language) for i, node in enumerate(nodes)]
    path = source / XLSX_TREES[language]
    rows, area = [], None
    for row, cells in xlsx_rows(path):
        area = cells[0] or area  # level 1 is a vertically merged cell
        if is_blank(cells[1]):
            continue  # one blank separator row inside an area
        note = cells[3] if len(cells) > 3 else None
        node = {"level1": area, "level2": cells[1], "prompt_example": cells[2], "note": note}
        rows.append(tree_row(path, row, node, language))
    return rows


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
        raise ImportError(f"Reading {path.name} needs openpyxl: pip install 'longform-eval[xlsx]'") from error
    workbook = openpyxl.load_workbook(path, read_only=True, data_only=True)
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
        template="tencentllmeval.md.j2",
        pretty_name="TencentLLMEval",
        license="other",
        language=["en", "zh"],
        task_categories=["text-generation", "question-answering"],
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


def build(source: str | Path | None = None, out: str | Path = "build/tencentllmeval") -> Path:
    source_dir = resolve_source(NAME, source, UPSTREAM)
    tables = [ConfigTable(lang, read_questions(source_dir, lang), QUESTION_FEATURES) for lang in LANGUAGES]
    tables += [ConfigTable(f"task_tree_{lang}", read_tree(source_dir, lang), TREE_FEATURES) for lang in LANGUAGES]
    return write_dataset_folder(out, tables, card_spec(tables))
