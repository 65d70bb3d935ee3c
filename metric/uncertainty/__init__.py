"""Uncertainty of every figure a run reports: intervals, paired comparisons, rank ranges, judge noise and power.

Pure and model-free. A benchmark says what it sampled (a `Design`: the units, and the strata whose sizes a
resample keeps) and how its figures aggregate (a `Figure` built from per-unit vectors, NaN where a unit is
unscored); the runner and the report only call the functions below. Every figure is evaluated on the same
seeded resamples (counts of each unit, `resampling`), so the same run gives the same intervals.

How a benchmark uses it:

1. The design. HelloBench resamples prompts within tasks, as its overall is a mean of task means:
   `Design.stratified(task_of_row, unit="prompt", by="task")`. LongGenBench's checks are clustered in
   items, so the item is the unit: `Design.simple(n_items, unit="item")`, with per-item sums of its checks
   (`cluster_sums`). LongBench-Write: `Design.simple(n_items, unit="item")`.
2. The figures, from per-unit vectors (NaN: unscored):

   - HelloBench `overall = affine(stratified_mean(row_score, task), 4, -300)`; task t:
     `affine(mean(row_score, scored=(task == t) & ~isnan(row_score)), 4, -300)`.
   - LongGenBench `cr = mean(item_cr)`, `stic1 = affine(ratio(yes, judged), 100)`,
     `stic2 = affine(ratio(yes, checks), 100)`, `wavg = product(cr, stic2, 1 / 100)` (per-item counts).
   - LongBench-Write `S_l = mean(s_l)`, `S_q = mean(s_q)` (NaN where unscored),
     `S = weighted_sum([S_l, S_q], [0.5, 0.5])`.
3. `intervals(figures, design, bounds={name: (low, high)})` -> {name: Interval or None}: Student's t at
   Welch-Satterthwaite df on the SE linearized over the design's units with the n/(n-1) small-sample factor per
   stratum (what a rescaling bootstrap converges to), computed on the logit of the figure's attainable range where
   `bounds` give it (so the interval stays on the scale; chosen over the studentized bootstrap by measured coverage,
   bench/interval_coverage.py); None for a
   figure on one unit per stratum (`interval_reasons` says why; a one-unit stratum among larger ones borrows the
   pooled variance in `sparse.pooled_interval`, where the unit values are known). `scores.json` gets
   `{name: interval.to_dict()}` ({"low", "high", "se", "n"}, "clipped": true where cut) under `intervals`, the
   reasons under `interval_notes`, and `interval_method(design)`. A figure that is no function
   of sums (a refitted model: the length-controlled win rate) takes `statistic_interval(statistic, design)`,
   `statistic(counts)` computing it with each unit weighted by how often a resample drew it; a plain win rate
   is `mean` of the per-prompt outcomes (1, 0.5, 0).
4. Comparisons: `shared_units(ids_a, ids_b)` aligns two runs; build each run's figure on the shared units
   with `scored` = both scored, then `paired_difference(a, b, design)` (its `to_dict()` plus "a", "b",
   "figure" is a `comparisons.json` entry; `distinguishable` False is a tie; `minimum_detectable` is the
   power figure; None, `difference_reason` says why). `rank_ranges({run: figure}, design)` ranks several runs
   from their paired differences.
5. Judge noise: with a (rows, K) matrix of judge samples, `judge_sd(samples)` and
   `split_variance(build, samples, interval.se)` -> shares of the variance from prompts and from the judge,
   and `se_with(prompts=..., judge_samples=...)`.
6. Power for a planned run: from a paired reference, `power_simulation.simulated_plan(PairedReference.of(z, rests,
   design), D)` simulates planned runs from its per-unit differences; from a single run, `prompts_needed(D,
   independent_se(se), n_reference, paired=False, strata=...)`, a noncentral t test at units - strata df.

>>> import numpy as np
>>> scores = np.array([80.0, 90.0, 70.0, 60.0, np.nan, 75.0])
>>> tasks = ["chat", "chat", "chat", "summarization", "summarization", "summarization"]
>>> overall = affine(stratified_mean(scores, tasks), 4, -300)
>>> overall.point(), overall.n
(-5.0, 5)
>>> design = Design.stratified(tasks, unit="prompt", by="task")
>>> found = intervals({"overall": overall}, design, rounds=200, seed=0)["overall"]
>>> found.low <= found.point <= found.high, sorted(found.to_dict())
(True, ['high', 'low', 'n', 'se'])
>>> interval_method(design, rounds=200)[:49]
'95% t interval over prompts, stratified by task: '
>>> interval_reasons({"chat": mean(scores, scored=[True, False, False, False, False, False])}, design)
{'chat': 'one prompt per task: no variance to estimate'}
"""

from .comparison import (
    Difference,
    RankRange,
    difference_reason,
    independent_difference,
    paired_difference,
    rank_ranges,
    ranks_from_pairs,
)
from .design import Design, cluster_sums, shared_units
from .figures import Figure, affine, compose, mean, product, ratio, stratified_mean, weighted_sum
from .intervals import (
    DEFAULT_LEVEL,
    DEFAULT_ROUNDS,
    DEFAULT_SEED,
    Interval,
    interval,
    interval_reasons,
    intervals,
)
from .judge_noise import VarianceSplit, judge_sd, row_scores, split_variance, within_row_variance
from .power import PowerPlan, independent_se, minimum_detectable_difference, prompts_needed
from .resampling import replicates
from .statistic_interval import statistic_interval
from .unit_intervals import interval_method

__all__ = [
    "DEFAULT_LEVEL",
    "DEFAULT_ROUNDS",
    "DEFAULT_SEED",
    "Design",
    "Difference",
    "Figure",
    "Interval",
    "PowerPlan",
    "RankRange",
    "VarianceSplit",
    "affine",
    "cluster_sums",
    "difference_reason",
    "compose",
    "independent_difference",
    "independent_se",
    "interval",
    "interval_method",
    "interval_reasons",
    "intervals",
    "judge_sd",
    "mean",
    "minimum_detectable_difference",
    "paired_difference",
    "prompts_needed",
    "product",
    "rank_ranges",
    "ranks_from_pairs",
    "ratio",
    "replicates",
    "row_scores",
    "shared_units",
    "split_variance",
    "statistic_interval",
    "stratified_mean",
    "weighted_sum",
    "within_row_variance",
]
