"""HelloEval's overall score calibrated by people: row scores (0..100, weighted checklists) from the judge and from
human checklist annotations of the same rows, PPI++ per task, then the overall as the paper makes it: the mean over
tasks of (mean row score - 75) * 4.

Several annotations of one row are clustered on it. Where a task has fewer than two annotated rows or fewer than two
rows left to the judge alone, no stratified figure can be made: the figure is then pooled over rows (a mean of row
scores, rescaled, which weighs tasks by their size) and a note says so. Each figure is cut to the overall's scale,
-300..100, its estimate with its interval (a task's parts are not: the strata's estimates are averaged as they are).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence

from longform_eval.common.plurals import counted

from ..helloeval.uncertainty import OFFSET, SCALE
from .combine import combined, rescaled
from .estimate import on_scale
from .ppi import DEFAULT_LEVEL, Estimate, classical_mean, clusters_of, ppi_mean
from .result import MIN_MATCHED, Calibrated, too_few
from .row_agreement import row_agreement

OVERALL = (OFFSET, SCALE * 100 + OFFSET)  # HelloEval's overall: -300..100
STRATIFIED = "stratified by task: per task PPI++ (its own lam), the overall the mean of the task scores"
POOLED = "pooled over rows (no task stratification: {why}); the figure weighs tasks by their number of rows"


def calibrate_overall(
    judge: Mapping[str, tuple[str, float]],
    human: Sequence[tuple[str, float]],
    level: float = DEFAULT_LEVEL,
    seed: int = 0,
) -> Calibrated:
    """`judge`: row id -> (task, the judge's row score); `human`: (row id, a human row score) on rows of `judge`.
    `seed`: the bootstrap's, for the interval of the judge-human correlation (`row_agreement`)."""
    unknown = sorted({row for row, _ in human} - set(judge))
    if unknown:
        raise ValueError(
            f"{counted(len(unknown), 'human annotation')} {'names' if len(unknown) == 1 else 'name'} rows the judge "
            f"did not score (first: {unknown[0]})"
        )
    tasks = sorted({task for task, _ in judge.values()})
    judge_only = combined(
        [judge_mean(judge, t, level) for t in tasks], "judge-only", level, SCALE, OFFSET, tasks, OVERALL
    )
    labelled = {row for row, _ in human}
    extra = {"strata": tasks, "row_agreement": row_agreement(judge, human, level, seed)}
    common = {"n_human": len(human), "n_judge": len(judge), "extra": extra}
    reason = too_few(len(human), len(labelled))
    if reason is not None:
        return Calibrated("overall", judge_only, None, None, absent=reason, **common)
    why = stratum_problem(judge, human, tasks)
    if why is None:
        parts = [task_estimates(judge, human, task, level) for task in tasks]
        human_only = combined([p[0] for p in parts], "human-only", level, SCALE, OFFSET, tasks, OVERALL)
        ppi = combined([p[1] for p in parts], "ppi++", level, SCALE, OFFSET, tasks, OVERALL)
        extra["lam_by_task"] = {task: p[1].lam for task, p in zip(tasks, parts, strict=True)}
        return Calibrated("overall", judge_only, human_only, ppi, notes=(STRATIFIED,), **common)
    rows = [(row, score) for row, score in human]
    human_only = on_scale(
        rescaled(classical_mean([s for _, s in rows], "human-only", level, clusters_of(rows)), SCALE, OFFSET),
        OVERALL,
        level,
    )
    rest = [score for row, (_, score) in judge.items() if row not in labelled]
    if len(rest) < MIN_MATCHED:
        have = "has" if len(rest) == 1 else "have"
        why_not = (
            f"{counted(len(rest), 'row')} {have} no human annotation; PPI needs two: the human-only figure stands alone"
        )
        return Calibrated(
            "overall", judge_only, human_only, None, absent=why_not, notes=(POOLED.format(why=why),), **common
        )
    found = ppi_mean([s for _, s in rows], [judge[r][1] for r, _ in rows], rest, level, clusters=clusters_of(rows))
    return Calibrated(
        "overall",
        judge_only,
        human_only,
        on_scale(rescaled(found, SCALE, OFFSET), OVERALL, level),
        notes=(POOLED.format(why=why),),
        **common,
    )


def judge_mean(judge: Mapping[str, tuple[str, float]], task: str, level: float) -> Estimate:
    return classical_mean([score for t, score in judge.values() if t == task], "judge-only", level)


def stratum_problem(
    judge: Mapping[str, tuple[str, float]], human: Sequence[tuple[str, float]], tasks: list[str]
) -> str | None:
    """Why the figure cannot be stratified by task (None if it can)."""
    labelled: dict[str, set[str]] = defaultdict(set)
    for row, _ in human:
        labelled[judge[row][0]].add(row)
    for task in tasks:
        size = sum(1 for t, _ in judge.values() if t == task)
        if len(labelled[task]) < MIN_MATCHED or size - len(labelled[task]) < MIN_MATCHED:
            count = len(labelled[task])
            rows = counted(size, "row")
            return f"task {task} has {count} of {rows} annotated; each task needs two annotated and two not"
    return None


def task_estimates(
    judge: Mapping[str, tuple[str, float]], human: Sequence[tuple[str, float]], task: str, level: float
) -> tuple[Estimate, Estimate]:
    """(human-only, PPI++) of one task's mean row score."""
    rows = [(row, score) for row, score in human if judge[row][0] == task]
    labelled = {row for row, _ in rows}
    values, judged = [s for _, s in rows], [judge[r][1] for r, _ in rows]
    rest = [score for row, (t, score) in judge.items() if t == task and row not in labelled]
    human_only = classical_mean(values, "human-only", level, clusters_of(rows))
    return human_only, ppi_mean(values, judged, rest, level, clusters=clusters_of(rows))


__all__ = ["calibrate_overall"]
