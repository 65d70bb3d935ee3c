"""`import_generations`: released responses -> the generations of a run folder without a model, so that `judge`,
`score` and `report` work on them.

The whole input is checked before the run folder is touched: an id given twice, or one the benchmark does not
have, is an error and nothing is written (`skip_unknown` leaves unknown ids out deliberately). A released folder
holds one file per task: a file with none of the benchmark's ids belongs to another config and is left out whole.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from longform_eval.common.errors import ConfigError
from longform_eval.common.plurals import counted
from longform_eval.dataset_builder.released import read_records, released_files

from ..benchmarks.rows import benchmark_rows
from ..runner import Run, RunConfig
from ..runner.schema import GenerationRecord
from .config_build import benchmark_from, dataset_fields
from .result import RunResult, run_result
from .settings import refused, settings_from
from .stages import locked, out_folder

SHOWN = 5  # ids named in a message
IMPORT_SETTINGS = ("benchmark_args", "dataset", "dataset_revision", "source", "name")


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
        parts = [f"imported {counted(self.imported, 'response')} into {self.run.folder}"]
        if self.already_there:
            parts.append(f"{self.already_there} already there")
        if self.responses.unknown:
            parts.append(
                f"skipped {counted(len(self.responses.unknown), 'unknown id')} ({first(self.responses.unknown)})"
            )
        if self.responses.left_out:
            names = ", ".join(path.name for path in self.responses.left_out)
            parts.append(f"left out {counted(len(self.responses.left_out), 'file')} with none of its ids ({names})")
        return "; ".join(parts)


def first(ids: list[str]) -> str:
    return ", ".join(ids[:SHOWN]) + (", ..." if len(ids) > SHOWN else "")


def response_files(path: Path) -> list[tuple[Path, list[tuple[str, str]]]]:
    """(file, its (id, response) pairs) for a released folder's task files, or for one JSON Lines file."""
    if path.is_dir():
        files = released_files(path)
        if not files:
            raise FileNotFoundError(f"{path}: no <task>_results.jsonl[.gz] files (HelloBench's release layout)")
    elif path.exists():  # a FIFO, a device or a file past the ceiling is refused by `read_records`, naming it
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
    problems = [f"{counted(len(repeated), 'id')} given more than once ({first(repeated)})"] if repeated else []
    if unknown and not skip_unknown:
        problems.append(f"{counted(len(unknown), 'id')} that {benchmark} does not have ({first(unknown)})")
    if problems:
        others = unknown and not repeated and len(unknown) < len(counts)
        hint = " (--skip-unknown imports the others)" if others else ""
        raise ValueError(f"{path}: {'; '.join(problems)}; nothing imported{hint}")
    left_out = [file for file, _ in files if matching and all(file != kept for kept, _ in matching)]
    return Responses([pair for pair in pairs if pair[0] in known], unknown, left_out)


def import_responses(
    responses: Path, out: Path, benchmark_name: str, settings: dict[str, Any], skip_unknown: bool = False
) -> ImportSummary:
    """Released responses -> generations.jsonl of a run without a model; ids already imported are kept as they are.
    A ConfigError for a refused setting, a ValueError or FileNotFoundError naming the file for refused responses."""
    config, checked = checked_import(responses, benchmark_name, settings, skip_unknown)
    return write_import(out, config, checked)


def checked_import(
    responses: Path, benchmark_name: str, settings: dict[str, Any], skip_unknown: bool
) -> tuple[RunConfig, Responses]:
    """Every setting and every response checked, before the run folder is touched."""
    chosen = settings_from(settings, IMPORT_SETTINGS)
    benchmark = benchmark_from(benchmark_name, chosen, None, run=False)
    paper = benchmark.paper_settings()
    config = RunConfig(
        **dataset_fields(chosen, benchmark),
        imported_from=chosen.name or responses.name.split(".")[0],
        generation=paper.generation,
        judge_generation=paper.judge,
        judge_attempts=paper.judge_attempts,
        parser=paper.parser,
        name=chosen.name,
    )
    known = {row["id"] for row in benchmark_rows(benchmark, config.dataset, config.dataset_revision, config.source)}
    return config, checked_responses(responses, known, f"{benchmark.name}:{benchmark.config}", skip_unknown)


def write_import(out: Path, config: RunConfig, checked: Responses) -> ImportSummary:
    run = Run.create(out, config)  # the run folder is written from here on
    present = set(run.current_generations())
    todo = [(sample_id, response) for sample_id, response in checked.pairs if sample_id not in present]
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
    return ImportSummary(run, len(todo), len(checked.pairs) - len(todo), checked)


def import_generations(
    responses: str | Path,
    out: str | Path,
    benchmark: str = "hellobench:all",
    skip_unknown: bool = False,
    **settings: Any,
) -> RunResult:
    """Released responses (a folder in HelloBench's release layout, or a JSON Lines file of {id, response}) into the
    run folder `out`, as `longform-eval import-generations` does; `judge(out)` and `score(out)` follow.

    Settings: `name` (the model's display name and recorded id, default the file or folder name), `benchmark_args`,
    `dataset`, `dataset_revision`, `source`. Responses that cannot be imported (no such file, an id repeated or
    unknown) are a ConfigError on `responses`, and nothing is written."""
    folder = out_folder(out, benchmark)
    try:
        config, checked = checked_import(Path(responses), benchmark, settings, skip_unknown)
    except ConfigError:
        raise
    except (FileNotFoundError, ValueError) as error:
        raise refused("responses", str(error)) from None
    with locked(folder):
        return run_result(write_import(folder, config, checked).run)


__all__ = ["ImportSummary", "import_generations", "import_responses"]
