"""Judged pairwise run folders (TencentLLMEval against its reference answers: a recorded model, a recorded judge) and
a votes database whose votes carry the judge's verdict on the same comparison, for the leaderboard's tests."""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable
from pathlib import Path

from longform_eval.inference.benchmarks import Selection, create_benchmark
from longform_eval.inference.benchmarks.rows import benchmark_rows
from longform_eval.inference.cli import main
from longform_eval.inference.runner import Run
from longform_eval.spaces.storage import Vote, VoteStore

REFERENCE = "reference answers (tencentllmeval:en)"
LIMIT, PER_GROUP = 40, 10
SELECT = ("--per-group", str(PER_GROUP), "--limit", str(LIMIT))


def questions() -> list[dict]:
    benchmark = create_benchmark("tencentllmeval", "en")
    return Selection(limit=LIMIT, per_group=PER_GROUP).apply(benchmark_rows(benchmark, None), benchmark)


def write_lines(path: Path, pairs) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps({"key": k, "text": t}) + "\n" for k, t in pairs), encoding="utf-8")
    return path


def judged_run(out: Path, rows: list[dict], verdict: Callable[[int], str]) -> tuple[Path, str]:
    """A run of a recorded model against the reference answers, judged in both orders by a recorded judge whose
    verdict on row i is `verdict(i)` ('A': the model's answer better, 'B': the reference's); (folder, model id)."""
    answers = [(row["id"], f"{out.name} answers {i}.") for i, row in enumerate(rows)]
    model = write_lines(out.parent / f"{out.name}.jsonl", answers)
    args = ["--benchmark", "tencentllmeval:en", *SELECT, "--model", f"replay:{model}", "--baseline", "reference"]
    assert main(["generate", *args, "--out", str(out)]) == 0
    run = Run.open(out, read_only=True)
    order = [row["id"] for row in run.rows]
    replies = []
    for sample_id, (text, _) in run.responses().items():
        for call in run.benchmark.judge_calls(run.by_id[sample_id], text):
            said = verdict(order.index(sample_id))
            shown_first = call.meta["part"] == "ab"  # the model's answer shown as A
            replies.append((call.key, f"Verdict: {said if shown_first else {'A': 'B', 'B': 'A'}[said]}"))
    judge = write_lines(out.parent / f"{out.name}-judge.jsonl", replies)
    assert main(["run", *args, "--judge", f"replay:{judge}", "--out", str(out)]) == 0
    return out, f"replay:{model}"


def run_verdicts(folder: Path) -> dict[str, str]:
    """The run's own judged outcome per item key (the model as A)."""
    scores = json.loads((folder / "scores.json").read_text(encoding="utf-8"))
    return {f"tencentllmeval:en/{b['id']}": b["outcome"] for b in scores["battles"] if b["outcome"]}


def vote_on_run(
    store: VoteStore, folder: Path, model: str, voted: int, human_win: float, rng: random.Random
) -> list[Vote]:
    """One human vote on each of the run's first `voted` comparisons (the model against the reference answers),
    the model winning with probability `human_win`, each with the run judge's verdict on it as `judge_outcome`."""
    votes = []
    for n, (item, judged) in enumerate(sorted(run_verdicts(folder).items())[:voted]):
        outcome = "A" if rng.random() < human_win else "B"
        vote = Vote(
            f"ann{n % 3}",
            "s",
            item,
            model,
            REFERENCE,
            "sorted",
            outcome,
            judged,
            False,
            token=f"{n}-{hashlib.sha256(model.encode()).hexdigest()[:16]}",
        )
        store.add_vote(vote)
        votes.append(vote)
    return votes
