"""The runs of one group compared together: every pair, and each run's rank range, on the units all of them scored.

Runs are grouped by `comparability` (benchmark config and options, dataset, prompts, the judge by its identity); a
group's pairs and its rank ranges rest on the same units, the units every run of the group scored, so that a rank
range and the pairs `compare` prints agree (`ranks_from_pairs` over the same pairs). What each run's gaps left out of
the shared units is counted and said (`prompts_sentence`).
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

from longform_eval.common.plurals import counted
from longform_eval.metric.uncertainty import RankRange, ranks_from_pairs

from .comparability import separation_reason
from .comparisons import METHOD, WRITTEN_BY, ComparedRun, SharedUnits, compare, shared_by


def by_group(runs: list[ComparedRun]) -> dict[str, list[ComparedRun]]:
    """The runs grouped by comparability (`comparability`), in the order given; groups of one run are left out."""
    groups: dict[str, list[ComparedRun]] = defaultdict(list)
    for run in runs:
        groups[run.group_key].append(run)
    return {key: members for key, members in groups.items() if len(members) > 1}


# ----- the runs of one group --------------------------------------------------------------------------------------
def ranked_fields(runs: list[ComparedRun], name: str | None, shared: SharedUnits, entries: list[dict]) -> dict:
    """Each run's figure `name` on the shared units (what its rank rests on) beside its own, and its rank range
    from the group's paired comparisons of that figure (`entries`, on the same units): one rule, so a rank range
    and the pairs `compare` prints agree."""
    head = {"figure": name, "unit": runs[0].units.unit, "n_shared": shared.n}
    points = {}
    if shared.n and name is not None:
        for run, table in zip(runs, shared.tables, strict=True):
            figure = run.benchmark.figures(table).get(name)
            point = figure.point() if figure is not None else None
            if point is not None and math.isfinite(point):
                points[run.label] = point
    ranges: dict[str, RankRange] = {}
    if points and len(points) == len(runs):
        separated = {
            (entry["a"], entry["b"]): entry["difference"]
            for entry in entries
            if entry["figure"] == name and entry.get("distinguishable")
        }
        ranges = ranks_from_pairs(points, separated)
    rows = [run_row(run, name, ranges.get(run.label), points.get(run.label), shared) for run in runs]
    return head | {"runs": sorted(rows, key=lambda row: (row["rank"] is None, row["rank"] or 0))}


def run_row(
    run: ComparedRun, name: str | None, found: RankRange | None, on_shared: float | None, shared: SharedUnits
) -> dict[str, Any]:
    """A run's own figure and interval (all the units it scored), its figure on the shared units, its rank range."""
    interval = run.scores.intervals.get(name) if name else None
    ranks = found.to_dict() if found is not None else dict.fromkeys(("rank", "best", "worst"))
    value = run.value(name) if name else None
    row = {"run": run.label, "model": run.scores.model, "value": value}
    own = {"low": None, "high": None} if interval is None else {"low": interval.low, "high": interval.high}
    return row | own | {"shared_value": on_shared, "dropped": shared.dropped.get(run.label, 0)} | ranks


def group_fields(runs: list[ComparedRun], shared: SharedUnits, entries: list[dict]) -> dict[str, Any]:
    """A group's runs on the units all of them scored: how many, how many each run's gaps left out, rank ranges."""
    headline = runs[0].benchmark.headline_of(list(runs[0].scores.intervals))
    judges = sorted({str(run.scores.judge) for run in runs})
    return {
        "benchmark": runs[0].config,
        "judges": judges,
        "prompts": prompts_sentence(runs, shared),
        "rank_ranges": ranked_fields(runs, headline, shared, entries),
    }


def prompts_sentence(runs: list[ComparedRun], shared: SharedUnits) -> str:
    """`compared on the 613 prompts all 26 runs scored; 34 left out: 28 unscored or missing in run X, ...`."""
    unit = runs[0].units.unit
    text = f"compared on the {counted(shared.n, unit)} all {counted(len(runs), 'run')} scored"
    gaps = sorted(((count, label) for label, count in shared.dropped.items() if count), reverse=True)
    if not gaps:
        return text
    left_out = len(set().union(*(set(run.units.ids) for run in runs))) - shared.n
    shown = ", ".join(f"{count} unscored or missing in {label}" for count, label in gaps)
    return f"{text}; {left_out} left out of every run's figure here ({shown})"


def group_comparisons(runs: list[ComparedRun]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A group's fields (`group_fields`) and every pair's comparisons, all on the units every run scored."""
    shared = shared_by(runs)
    entries = [
        entry
        for i, a in enumerate(runs)
        for j in range(i + 1, len(runs))
        for entry in compare(a, runs[j], shared, (i, j))
    ]
    return group_fields(runs, shared, entries), entries


def comparisons_document(runs: list[ComparedRun]) -> dict[str, Any] | None:
    """What `comparisons.json` holds; None when no two given runs can be compared (`comparability`)."""
    groups = by_group(runs)
    if not groups:
        return None
    configs, comparisons = [], []
    first = next(iter(groups.values()))[0].group
    for number, members in enumerate(groups.values(), start=1):
        fields, entries = group_comparisons(members)
        separate = separation_reason(members[0].group, first) if members[0].group and first else ""
        configs.append({"group": number} | fields | ({"separate": separate} if number > 1 and separate else {}))
        comparisons += [{"group": number} | entry for entry in entries]
    return {"written_by": WRITTEN_BY, "method": METHOD, "configs": configs, "comparisons": comparisons}
