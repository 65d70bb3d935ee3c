"""Whether a run's scores.json is what the folder's records give now, and what a reader does when it is not.

scores.json keeps the hash of what it was scored from (`inputs`: config.yaml, the rows file, the logs, a baseline
run's files and the code's identity; `runner.inputs.records_hash`). Where the folder's hash now is the same, the file
is believed. Where it is not (a verdict, a generation, a weight, a setting or the code changed since, or the file
predates the field), the scores are computed again from the records, in memory, once per content (kept in the
user's cache by that hash); figures that come out the same leave the file as it is. Figures that differ are stale:
`report`, which writes the folder, writes the new scores.json and says so in one line; a reader that writes nothing
(`leaderboard`, `open_run`, `compare`) serves the recomputed scores (`scores_file.serve_scores`) and says so in one
warning.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from longform_eval.common.errors import StaleResultWarning

from ..benchmarks.run_scores import RunScores
from ..runner.scoring import write_scores
from .result_cache import cached
from .scores_file import SCORES_FILE, serve_scores, typed_scores

KIND = "scores-from-records@1"
VOLATILE = ("inputs", "n_failed_calls")  # what two scorings of the same records may differ in (this call's failures)


class StaleScores(StaleResultWarning):
    """A run's scores.json was not what its records give now: written again (`report`) or recomputed in memory."""


@dataclass(frozen=True)
class Stale:
    folder: Path
    why: str
    scores: RunScores  # computed from the records as they are now


def stale_scores(folder: Path, stored: RunScores, inputs: str, scores_now: Callable[[], dict]) -> Stale | None:
    """None where `stored` (scores.json as read) is what the folder's records give now (`inputs`: their hash);
    `scores_now()` computes the scores from the records, called only where the hashes differ and nothing is kept."""
    if stored.inputs == inputs:
        return None
    computed = cached(KIND, [inputs], scores_now)
    if figures_text(computed) == figures_text(stored.document()):
        return None
    why = (
        "it was scored from other records, config.yaml, rows or code than the folder holds now"
        if stored.inputs
        else "it does not say what it was scored from, and its figures differ from the records'"
    )
    return Stale(folder, why, typed_scores(folder, computed))


def figures_text(scores: dict[str, Any]) -> str:
    """The scores as one canonical text, without what two scorings of the same records may differ in."""
    kept = {key: value for key, value in scores.items() if key not in VOLATILE}
    return json.dumps(kept, sort_keys=True, ensure_ascii=False, default=str)


def settle(stale: Stale, rescore: bool) -> None:
    """`rescore` (the caller writes the folder): write the recomputed scores.json; else serve them in memory (already
    served: `serve`). Either way, one line says so."""
    path = stale.folder / SCORES_FILE
    if rescore:
        write_scores(stale.folder, stale.scores)
        done = "scored again from the records and written"
    else:
        rewrite = f"`longform-eval report {stale.folder}` rewrites it"
        done = f"its figures are recomputed from the records (nothing written; {rewrite})"
    warnings.warn(StaleScores(f"{path}: not what the folder's records give now ({stale.why}); {done}"), stacklevel=3)


def serve(stale: Stale) -> None:
    """Every `load_scores` of the folder in this process gives the recomputed scores while scores.json is unchanged."""
    serve_scores(stale.folder, stale.scores)
