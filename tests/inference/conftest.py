from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

TASKS = ("open_ended_qa", "summarization", "chat", "text_completion", "heuristic_text_generation")


def released(shared_data: Path, kind: str, model: str) -> list[dict]:
    folder = shared_data / "hellobench" / kind / "main_exp" / model
    records = []
    for task in TASKS:
        with gzip.open(folder / f"{task}_results.jsonl.gz", "rt", encoding="utf-8") as handle:
            records.extend(json.loads(line) for line in handle)
    return records


def write_replay(path: Path, pairs) -> Path:
    with path.open("w", encoding="utf-8") as handle:
        for key, text in pairs:
            handle.write(json.dumps({"key": key, "text": text}) + "\n")
    return path


@pytest.fixture(scope="session")
def gpt4o_replays(shared_data, tmp_path_factory):
    """Replay files: GPT-4o's released responses (as a model) and its released verdicts (as a judge)."""
    folder = tmp_path_factory.mktemp("replay")
    generations = write_replay(
        folder / "gen.jsonl", ((r["id"], r["response"]) for r in released(shared_data, "generations", "gpt4o_0806"))
    )
    verdicts = write_replay(
        folder / "judge.jsonl",
        (
            (r["id"], json.dumps(r["checklist_wise_evaluation"], ensure_ascii=False))  # the judge's JSON reply
            for r in released(shared_data, "judgements", "gpt4o_0806")
        ),
    )
    return generations, verdicts


def chat_run(limit: int, model: str, judge: str, out: str, *extra: str) -> list[str]:
    """`longform-eval run` arguments for the first `limit` HelloBench chat prompts."""
    return [
        "run",
        "--benchmark",
        "hellobench:chat",
        "--limit",
        str(limit),
        "--model",
        model,
        "--judge",
        judge,
        *extra,
        "--out",
        out,
    ]
