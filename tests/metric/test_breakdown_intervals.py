"""LongGenBench's per-type and per-scenario table gets intervals over items (the unit its checks are clustered in)."""

from __future__ import annotations

import numpy as np

from longform_eval.metric.longgenbench.uncertainty import breakdown_intervals


def test_each_type_and_scenario_gets_an_interval_on_0_100_that_holds_its_figure():
    rng = np.random.default_rng(1)
    items = 40
    scenarios = ["Diary" if i % 2 else "Menu" for i in range(items)]
    by_type = {}
    for label, size in (("SI", 5), ("RI", 1), ("PI", 1)):
        checks = np.full(items, size)
        judged = rng.binomial(checks, 0.9)
        by_type[label] = np.column_stack([checks, judged, rng.binomial(judged, 0.3)])
    cr = rng.uniform(60, 100, items)
    found = breakdown_intervals(scenarios, cr, by_type)
    assert set(found) == {"SI", "RI", "PI", "Diary", "Menu"} and "cr" not in found["SI"]
    for label, counts in by_type.items():
        stic1 = 100 * counts[:, 2].sum() / counts[:, 1].sum()
        assert 0 <= found[label]["stic1"]["low"] < stic1 < found[label]["stic1"]["high"] <= 100
        assert found[label]["stic2"]["n"] == items
    diary = np.array(scenarios) == "Diary"
    assert found["Diary"]["cr"]["low"] < cr[diary].mean() < found["Diary"]["cr"]["high"]
    assert found["Diary"]["stic2"]["n"] == diary.sum()


def test_a_scenario_of_one_item_has_no_interval():
    counts = np.array([[5, 5, 2], [5, 4, 1]])
    found = breakdown_intervals(["Diary", "Menu"], np.array([80.0, 90.0]), {"SI": counts})
    assert found["Diary"] == {"cr": None, "stic1": None, "stic2": None}
