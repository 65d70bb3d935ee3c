"""Import released generations into a run folder, so `judge`, `score` and `report` work on them."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path

from longform_eval.dataset_builder.released import read_records, released_responses

from .cli_args import benchmark_from, dataset_fields
from .runner import Run, RunConfig
from .runner.schema import GenerationRecord


def responses_of(path: Path) -> Iterator[tuple[str, str]]:
    if path.is_dir():
        yield from released_responses(path)
    elif path.is_file():
        yield from ((r["id"], r["response"]) for r in read_records(path, "id"))
    else:
        raise FileNotFoundError(f"{path}: no such folder or file of released responses")


def import_generations(args: argparse.Namespace) -> tuple[Run, int]:
    """Released responses -> generations.jsonl of a run without a model. Unknown and repeated ids are skipped."""
    benchmark = benchmark_from(args, args.benchmark)
    paper = benchmark.paper_settings()
    config = RunConfig(
        **dataset_fields(args, benchmark),
        imported_from=args.name or args.responses.name.split(".")[0],
        generation=paper.generation,
        judge_generation=paper.judge,
        judge_attempts=paper.judge_attempts,
        parser=paper.parser,
    )
    run = Run(args.out, config)
    present = set(run.current_generations())
    imported = 0
    for sample_id, response in responses_of(args.responses):
        if sample_id in run.by_id and sample_id not in present:
            record = GenerationRecord(
                sample_id=sample_id,
                model=config.model_id,
                config_hash=config.generation_hash,
                response=response,
                attempts=0,
            )
            run.generations.append(record.model_dump(mode="json"))
            present.add(sample_id)
            imported += 1
    run.generations.close()
    return run, imported
