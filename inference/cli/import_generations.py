"""Import released generations into a run folder, so `judge`, `score` and `report` work on them.

The whole input is checked before the run folder is touched: an id given twice, or one the benchmark does not
have, is an error and nothing is written (`--skip-unknown` leaves unknown ids out deliberately). A released folder
holds one file per task: a file with none of the benchmark's ids belongs to another config and is left out whole.
"""

from __future__ import annotations

import argparse
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from longform_eval.dataset_builder.released import read_records, released_files

from ..benchmarks.rows import benchmark_rows
from ..runner import Run, RunConfig
from ..runner.schema import GenerationRecord
from .args import benchmark_from, dataset_fields

SHOWN = 5  # ids named in a message


@dataclass
class Responses:
    """The (id, response) pairs to import, and what was left out on the way."""

    pairs: list[tuple[str, str]]
    unknown: list[str] = field(default_factory=list)
    left_out: list[Path] = field(default_factory=list)


@dataclass
class ImportSummary:
    run: Run
    imported: int
    already_there: int
    responses: Responses

    def line(self) -> str:
        parts = [f"imported {self.imported} responses into {self.run.folder}"]
        if self.already_there:
            parts.append(f"{self.already_there} already there")
        if self.responses.unknown:
            parts.append(f"skipped {len(self.responses.unknown)} unknown ids ({first(self.responses.unknown)})")
        if self.responses.left_out:
            names = ", ".join(path.name for path in self.responses.left_out)
            parts.append(f"left out {len(self.responses.left_out)} files with none of its ids ({names})")
        return "; ".join(parts)


def first(ids: list[str]) -> str:
    return ", ".join(ids[:SHOWN]) + (", ..." if len(ids) > SHOWN else "")


def response_files(path: Path) -> list[tuple[Path, list[tuple[str, str]]]]:
    """(file, its (id, response) pairs) for a released folder's task files, or for one JSON Lines file."""
    if path.is_dir():
        files = released_files(path)
        if not files:
            raise FileNotFoundError(f"{path}: no <task>_results.jsonl[.gz] files (HelloBench's release layout)")
    elif path.is_file():
        files = [path]
    else:
        raise FileNotFoundError(f"{path}: no such folder or file of released responses")
    return [(file, [(r["id"], r["response"]) for r in read_records(file, "id", strict=True)]) for file in files]


def checked_responses(path: Path, known: set[str], benchmark: str, skip_unknown: bool) -> Responses:
    """The responses of `path` for the ids in `known`; a ValueError naming the ids if any repeats or is unknown."""
    files = response_files(path)
    matching = [(file, pairs) for file, pairs in files if any(sample_id in known for sample_id, _ in pairs)]
    chosen = matching or files
    pairs = [pair for _, file_pairs in chosen for pair in file_pairs]
    if not pairs:
        raise ValueError(f"{path}: no responses to import (records of text 'id' and 'response')")
    counts = Counter(sample_id for sample_id, _ in pairs)
    repeated = [sample_id for sample_id, count in counts.items() if count > 1]
    unknown = [sample_id for sample_id in counts if sample_id not in known]
    problems = [f"{len(repeated)} ids given more than once ({first(repeated)})"] if repeated else []
    if unknown and not skip_unknown:
        problems.append(f"{len(unknown)} ids that {benchmark} does not have ({first(unknown)})")
    if problems:
        others = unknown and not repeated and len(unknown) < len(counts)
        hint = " (--skip-unknown imports the others)" if others else ""
        raise ValueError(f"{path}: {'; '.join(problems)}; nothing imported{hint}")
    left_out = [file for file, _ in files if matching and all(file != kept for kept, _ in matching)]
    return Responses([pair for pair in pairs if pair[0] in known], unknown, left_out)


def import_generations(args: argparse.Namespace) -> ImportSummary:
    """Released responses -> generations.jsonl of a run without a model; ids already imported are kept as they are."""
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
    known = {row["id"] for row in benchmark_rows(benchmark, args.dataset, args.dataset_revision, args.source)}
    name = f"{benchmark.name}:{benchmark.config}"
    responses = checked_responses(args.responses, known, name, args.skip_unknown)
    run = Run.create(args.out, config)  # the run folder is written from here on
    present = set(run.current_generations())
    todo = [(sample_id, response) for sample_id, response in responses.pairs if sample_id not in present]
    for sample_id, response in todo:
        record = GenerationRecord(
            sample_id=sample_id,
            model=config.model_id,
            config_hash=config.generation_hash,
            response=response,
            attempts=0,
        )
        run.generations.append(record.model_dump(mode="json"))
    run.generations.close()
    return ImportSummary(run, len(todo), len(responses.pairs) - len(todo), responses)
