"""LongGenBench's figures as functions of per-item sums, for intervals (`longform_eval.metric.uncertainty`).

Checks are clustered in items (one output answers all of an item's checks), so the item is the unit a resample
draws. Per item: its completion rate, its checks (judged or not, unscored ones left out), its judged checks and its
STIC-2 (100 * yes / checks, the item's row score for judge noise).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ..uncertainty import Figure, affine, mean, product, ratio
from ..uncertainty.groups import as_dicts, group_intervals

PERCENT = (0.0, 100.0)


def longgenbench_figures(
    cr: np.ndarray, stic2: np.ndarray, judged: np.ndarray, checks: np.ndarray
) -> dict[str, Figure]:
    """CR = mean item CR; STIC-1 = pooled yes / judged; STIC-2 = pooled yes / checks; wAvg = CR * STIC-2 / 100."""
    checks = np.asarray(checks, dtype=float)
    yes = np.nan_to_num(np.asarray(stic2, dtype=float)) * checks / 100.0
    stic2_figure = affine(ratio(yes, checks), 100.0)
    cr_figure = mean(cr)
    return {
        "cr": cr_figure,
        "stic1": affine(ratio(yes, np.asarray(judged, dtype=float)), 100.0),
        "stic2": stic2_figure,
        "wavg": product(cr_figure, stic2_figure, 1 / 100.0),
    }


def breakdown_intervals(
    scenarios: Sequence[str], cr: np.ndarray, by_type: Mapping[str, np.ndarray]
) -> dict[str, dict[str, dict[str, float | int | bool] | None]]:
    """The intervals of the per-type and per-scenario table, the item the unit throughout, on 0..100.

    `by_type[label]`: (items, 3) per-item counts of that type's checks, judged checks and yes (zeros where an item has
    none). A type's STIC-1 and STIC-2 pool its checks over every item; a scenario's CR, STIC-1 and STIC-2 rest on
    its items only (all of their checks). None where a figure rests on one item or does not vary.
    """
    found: dict[str, dict[str, dict[str, float | int | bool] | None]] = {}
    for label, counts in by_type.items():
        checks, judged, yes = (np.asarray(counts, dtype=float)[:, k] for k in range(3))
        found[label] = stic_intervals(yes, judged, checks, {})
    labels = np.asarray(scenarios, dtype=object)
    totals = sum(np.asarray(counts, dtype=float) for counts in by_type.values())
    for scenario in sorted(set(labels.tolist())):
        mine = labels == scenario
        checks, judged, yes = (totals[mine, k] for k in range(3))
        found[scenario] = stic_intervals(yes, judged, checks, {"cr": mean(np.asarray(cr, dtype=float)[mine])})
    return found


def stic_intervals(
    yes: np.ndarray, judged: np.ndarray, checks: np.ndarray, others: dict[str, Figure]
) -> dict[str, dict[str, float | int | bool] | None]:
    figures = others | {"stic1": affine(ratio(yes, judged), 100.0), "stic2": affine(ratio(yes, checks), 100.0)}
    return as_dicts(group_intervals(figures, unit="item", bounds=dict.fromkeys(figures, PERCENT)))
