"""Every file `longform-eval report` reads, checked before it writes anything.

A run folder's config.yaml (valid, and selecting the rows its records were made on), every record of its logs,
scores.json (`scores_file`; and whether it is what the records give now: `scores_check`), timings.json, and, for
several runs, the comparisons.json in `report --out DIR`: a damaged one is one line naming the file (and the line and
field), exit status 2, and no report.md, plot or view of any given run is rewritten. `score` checks the record logs
the same way before it opens the folder for writing.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..benchmarks.run_scores import RunScores
from ..runner import Run
from ..runner.config import RunConfig, RunConfigMismatch
from ..runner.folder import CONFIG_FILE, GENERATION_LOGS, JUDGEMENT_LOGS, RunFolderError, read_config, validated_config
from ..runner.inputs import baseline_folder, records_hash
from ..runner.pending import PendingCalls, pending_calls
from ..runner.records import RecordLog
from ..runner.schema import GenerationRecord, JudgementRecord
from .comparisons_file import comparisons_path
from .folder_check import folder_hash, remember_check, remembered_check
from .json_file import DamagedFile
from .pairwise import pairwise_runs
from .scores_check import Stale, serve, settle, stale_scores
from .scores_file import SCORES_FILE, scores_bytes, scores_document, stored_scores
from .timings import read_timings

LOGS: tuple[tuple[str, type[GenerationRecord] | type[JudgementRecord]], ...] = (
    (GENERATION_LOGS, GenerationRecord),
    (JUDGEMENT_LOGS, JudgementRecord),
)


def check_record_logs(folder: Path, skipped: tuple[str, ...] = ()) -> None:
    """Every record of the folder's generation and judgement logs (shards included; but the logs named in `skipped`)
    is one of its type, whatever model or judge made it; a RecordError names the file, the line and the field of the
    first that is not."""
    for pattern, model in LOGS:
        for path in sorted(Path(folder).glob(pattern)):
            if path.name in skipped:
                continue
            log = RecordLog(path, model.KEY)
            for number, record in log.numbered():
                log.typed(model, number, record)


def opened_as_made(folder: Path) -> Run:
    """The run folder read as it is (no lock, nothing written); a RunFolderError if its config.yaml now selects other
    rows than those its records were made on (a changed selection, dataset or benchmark option)."""
    path = folder / CONFIG_FILE
    stored = read_config(folder)
    config = validated_config(path, stored)
    try:
        return Run.create(folder, config, read_only=True)
    except RunConfigMismatch as error:
        changed = ", ".join(error.fields)  # e.g. dataset_hash: the rows it selects are not those of the records
        raise RunFolderError(
            f"{path}: field '{changed}': the rows this config.yaml selects are not those the run was made on (its "
            "selection, dataset or benchmark options were changed); restore the config.yaml the run wrote"
        ) from None


class FolderReader:
    """One run folder, opened (its rows read, its config reconciled with its records) only where a check needs it."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.run: Run | None = None

    def opened(self) -> Run:
        if self.run is None:
            self.run = opened_as_made(self.folder)
        return self.run

    def scores_now(self) -> dict:
        return self.opened().score(write=False).document()


def checked_run(folder: Path) -> tuple[PendingCalls, Stale | None]:
    """One run folder's files, checked; the calls it still owes (what `report` says after writing; learnt from its
    records, or from what a check of the same files found before: `folder_check`), and whether its scores.json is
    not what the records give now (`scores_check`)."""
    config = validated_config(folder / CONFIG_FILE, read_config(folder))
    inputs = records_hash(folder, baseline_folder(config.benchmark_args))
    key = folder_hash(folder, records=inputs)
    reader = FolderReader(folder)
    pending = remembered_check(folder, key)
    if pending is None:
        run = reader.opened()
        config = run.config
        run.check_records()  # its two logs, read once for the check and the pending calls
        check_record_logs(folder, skipped=(run.generations.path.name, run.judgements.path.name))  # shards
        pending = pending_calls(run)  # the current records, as checked; failures.jsonl
        remember_check(key, pending)
    scores = checked_scores(folder, config)
    read_timings(folder)
    return pending, stale_scores(folder, scores, inputs, reader.scores_now)


def checked_scores(folder: Path, config: RunConfig) -> RunScores:
    """scores.json, checked against config.yaml's benchmark and config, then as `load_scores` checks it."""
    data = scores_bytes(folder)
    document = scores_document(folder, data)
    for field, stored in (("benchmark", config.benchmark), ("config", config.benchmark_config)):
        if isinstance(document, dict) and isinstance(document.get(field), str) and document[field] != stored:
            raise DamagedFile(
                f"{folder / SCORES_FILE}: field '{field}': {document[field]!r}, but {CONFIG_FILE} says {stored!r}; "
                f"run `longform-eval score {folder}` again"
            )
    return stored_scores(folder, data, document)  # as `load_scores` keeps it


def checked_runs(
    folders: Sequence[Path], comparisons_out: Path | None = None, rescore: bool = False
) -> list[PendingCalls]:
    """Every given run folder checked (see the module doc) before `report` writes anything for any of them;
    `comparisons_out`: the folder `report --out` names for comparisons.json; `rescore`: the caller writes the folders
    (`report`): a scores.json that is not what its records give now is written again (else it is recomputed in
    memory for this process: `leaderboard` and the API read only). Either is said in one `StaleScores` warning."""
    checked = [checked_run(Path(folder)) for folder in folders]
    if comparisons_out is not None:
        comparisons_path(comparisons_out, folders)  # refuses a comparisons.json `report` did not write for these runs
    stale = [found for _, found in checked if found is not None]
    for found in stale:
        serve(found)  # what every reader of this process reads of the folder from now on
    pairwise_runs(list(folders))  # refuses a pairwise run whose model and baseline have one name
    for found in stale:  # every run passed: what `report` writes may be written now
        settle(found, rescore)
    return [pending for pending, _ in checked]
