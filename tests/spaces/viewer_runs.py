"""Run folders for the sample viewer's tests: small HelloBench chat runs of released models, made by the runner itself
from replay files of their released responses (as the model) and released verdicts (as the judge)."""

from __future__ import annotations

import json
from pathlib import Path

from inference.conftest import chat_run, released, write_replay

from longform_eval.inference.cli import main

MODELS = ("gpt4o_0806", "llama31_8b")  # released with generations and GPT-4o's judgements
LIMIT = 6  # the first 6 chat prompts: 4 subcategories, two of them report_write
HOSTILE = (
    "Intro text.\n\n<script>window.__owned = 1; alert('xss')</script>\n\n"
    '<img src="x" onerror="window.__owned = 2">\n\n'
    "[click me](javascript:window.__owned=3) and [ok link](https://example.org)\n\n**bold stays bold**"
)


def replay_files(shared_data: Path, folder: Path, model: str) -> tuple[Path, Path]:
    """`model`'s released responses and the judge's released verdicts on them, as replay files."""
    folder.mkdir(parents=True, exist_ok=True)
    generations = write_replay(
        folder / f"{model}.jsonl", ((r["id"], r["response"]) for r in released(shared_data, "generations", model))
    )
    verdicts = write_replay(
        folder / f"{model}-judge.jsonl",
        (
            (r["id"], json.dumps(r["checklist_wise_evaluation"], ensure_ascii=False))
            for r in released(shared_data, "judgements", model)
        ),
    )
    return generations, verdicts


def hellobench_run(shared_data: Path, root: Path, model: str, limit: int = LIMIT) -> Path:
    """`longform-eval run --benchmark hellobench:chat --limit LIMIT` of `model` (replayed), judged and scored."""
    generations, verdicts = replay_files(shared_data, root / "replays", model)
    out = root / model
    assert main(chat_run(limit, f"replay:{generations}", f"replay:{verdicts}", str(out))) == 0
    return out


def hostile_run(shared_data: Path, root: Path, limit: int = LIMIT) -> Path:
    """A HelloBench chat run whose every answer is hostile markup, judged with GPT-4o's released verdicts."""
    _, verdicts = replay_files(shared_data, root / "replays", MODELS[0])
    rows = released(shared_data, "generations", MODELS[0])
    generations = write_replay(root / "replays" / "hostile.jsonl", ((r["id"], HOSTILE) for r in rows))
    out = root / "hostile"
    assert main(chat_run(limit, f"replay:{generations}", f"replay:{verdicts}", str(out))) == 0
    return out
