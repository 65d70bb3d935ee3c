"""Human-calibrated figures: prediction-powered inference (PPI++, Angelopoulos, Duchi and Zrnic 2023).

Many judge labels and a few human ones give an estimate of the human figure whose interval covers it, with the
judge's bias removed: `ppi_mean(human, judge_on_human, judge_on_rest)`. Units may be clustered (several labels of
one item): pass the cluster of each label, and the variance is computed over clusters. Pure and model-free.
`calibrate_win_rate` (pairwise runs) and `calibrate_overall` (HelloEval, stratified by task) make a run's headline
figure three ways (`Calibrated`): the judge's alone, the humans' alone and PPI++.
"""

from .checklists import calibrate_overall
from .combine import combined, rescaled
from .estimate import on_scale
from .pairwise import calibrate_win_rate, win_value
from .ppi import Estimate, classical_mean, ppi_mean
from .result import MIN_MATCHED, Calibrated

__all__ = [
    "MIN_MATCHED",
    "Calibrated",
    "Estimate",
    "calibrate_overall",
    "calibrate_win_rate",
    "classical_mean",
    "combined",
    "on_scale",
    "ppi_mean",
    "rescaled",
    "win_value",
]
