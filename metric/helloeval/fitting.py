"""HelloEval preparation stage: fit checklist weights to human overall scores.

Annotation file (JSON Lines), one object per annotated response:

    {"row_id": "chat_002", "subcategory": "report_write", "checklist_scores": [1, 0.75, 0.5, 1, 0.25, 1],
     "overall_score": 7.5, "annotator": "ann-03"}

`checklist_scores` hold one value per checklist of the subcategory, each in {0, 0.25, 0.5, 0.75, 1};
`overall_score` is the annotator's 0-10 judgement of the whole response. Per subcategory the fit solves
y = X w by bounded least squares with every w_i >= 0.5, then normalises w to sum to 100.

Every subcategory needs overall scores that are not all equal (two annotations at least), else R^2 is
undefined. `longform-eval fit-weights` (and `fit_weights(..., overdetermined=True)`) also needs k + 1 annotations
for a subcategory with k checklists: one residual degree of freedom, since with k rows or fewer the k weights can
fit any overall scores and R^2 says nothing. A fit short of that is refused as a whole, listing every
subcategory short of it, rather than write weights no one can check. An empty file is refused too.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import lsq_linear

from longform_eval.common.errors import SourceError
from longform_eval.common.plurals import counted
from longform_eval.common.records import read_jsonl, require

LEVELS = (0.0, 0.25, 0.5, 0.75, 1.0)
MIN_WEIGHT = 0.5
WEIGHT_TOTAL = 100.0


@dataclass(frozen=True)
class Annotation:
    row_id: str
    subcategory: str
    checklist_scores: tuple[float, ...]
    overall_score: float
    annotator: str


@dataclass(frozen=True)
class SubcategoryFit:
    subcategory: str
    weights: tuple[float, ...]
    raw_weights: tuple[float, ...]
    r2: float
    mse: float
    n: int


def read_annotations(path: str | Path) -> list[Annotation]:
    """Read and validate an annotation file; errors (a SourceError) name the file, line and field."""
    path = Path(path)
    annotations = []
    widths: dict[str, tuple[int, int]] = {}  # subcategory -> (number of checklists, first line)
    for line, record in read_jsonl(path):
        scores = require(path, line, record, "checklist_scores", list)
        if not scores or any(isinstance(s, bool) or s not in LEVELS for s in scores):
            raise SourceError(path, line, "checklist_scores", f"each score must be one of {LEVELS}")
        overall = require(path, line, record, "overall_score", (int, float))
        if isinstance(overall, bool) or not 0 <= overall <= 10:
            raise SourceError(path, line, "overall_score", "must be a number from 0 to 10")
        subcategory = require(path, line, record, "subcategory", str)
        width, first = widths.setdefault(subcategory, (len(scores), line))
        if len(scores) != width:
            raise SourceError(
                path,
                line,
                "checklist_scores",
                f"{counted(len(scores), 'score')}, but {subcategory!r} had {width} on line {first}",
            )
        annotations.append(
            Annotation(
                row_id=require(path, line, record, "row_id", str),
                subcategory=subcategory,
                checklist_scores=tuple(float(s) for s in scores),
                overall_score=float(overall),
                annotator=require(path, line, record, "annotator", str),
            )
        )
    if not annotations:
        raise SourceError(path, None, None, "no annotations (the file is empty)")
    return annotations


def min_rows(n_checklists: int) -> int:
    """Fewest annotations an overdetermined fit of `n_checklists` weights needs: one more than it has weights."""
    return n_checklists + 1


def fit_problem(group: list[Annotation], overdetermined: bool) -> str | None:
    """Why a subcategory's annotations cannot be fitted (R^2 undefined, or too few rows), or None."""
    width, n = len(group[0].checklist_scores), len(group)
    rows = counted(n, "annotation")
    if overdetermined and len(group) < min_rows(width):
        return f"{rows}, needs at least {min_rows(width)} ({counted(width, 'checklist')} + 1)"
    if len({a.overall_score for a in group}) == 1:
        return f"{rows} whose overall scores are all {group[0].overall_score:g}: R^2 is undefined"
    return None


def fit_subcategory(subcategory: str, x: np.ndarray, y: np.ndarray) -> SubcategoryFit:
    solution = lsq_linear(x, y, bounds=(MIN_WEIGHT, np.inf))
    raw = solution.x
    residual = y - x @ raw
    mse = float(np.mean(residual**2))
    variance = float(np.sum((y - y.mean()) ** 2))
    r2 = 1.0 - float(np.sum(residual**2)) / variance if variance > 0 else float("nan")
    normalised = raw / raw.sum() * WEIGHT_TOTAL
    return SubcategoryFit(subcategory, tuple(map(float, normalised)), tuple(map(float, raw)), r2, mse, len(y))


def fit_weights(annotations: Iterable[Annotation], overdetermined: bool = False) -> dict[str, SubcategoryFit]:
    """One bounded least-squares fit per subcategory.

    Args:
        annotations: the validated annotations (`read_annotations`).
        overdetermined: also refuse subcategories with fewer than k + 1 annotations for k checklists.

    Raises:
        ValueError: no annotations; annotations of one subcategory with different numbers of checklists;
            subcategories that cannot be fitted (see `fit_problem`), all listed in one message.
    """
    grouped: dict[str, list[Annotation]] = defaultdict(list)
    for annotation in annotations:
        grouped[annotation.subcategory].append(annotation)
    if not grouped:
        raise ValueError("no annotations to fit")
    for subcategory, group in grouped.items():
        widths = {len(a.checklist_scores) for a in group}
        if len(widths) != 1:
            raise ValueError(f"subcategory {subcategory!r}: annotations disagree on the number of checklists {widths}")
    problems = {sub: fit_problem(group, overdetermined) for sub, group in sorted(grouped.items())}
    offenders = [f"{sub!r}: {problem}" for sub, problem in problems.items() if problem is not None]
    if offenders:
        raise ValueError("cannot fit weights for " + "; ".join(offenders))
    fits = {}
    for subcategory, group in sorted(grouped.items()):
        x = np.array([a.checklist_scores for a in group])
        y = np.array([a.overall_score for a in group])
        fits[subcategory] = fit_subcategory(subcategory, x, y)
    return fits


def fit_report(fits: dict[str, SubcategoryFit]) -> dict[str, Any]:
    return {sub: {"n": f.n, "r2": f.r2, "mse": f.mse, "weights": list(f.weights)} for sub, f in fits.items()}
