"""Human-calibrated figures: prediction-powered inference (PPI++, Angelopoulos, Duchi and Zrnic 2023).

Many judge labels and a few human ones give an estimate of the human figure whose interval covers it, with the
judge's bias removed: `ppi_mean(human, judge_on_human, judge_on_rest)`. Units may be clustered (several labels of
one item): pass the cluster of each label, and the variance is computed over clusters. Pure and model-free.
"""

from .agreement import Agreement, agreement
from .ppi import Estimate, classical_mean, ppi_mean

__all__ = ["Agreement", "Estimate", "agreement", "classical_mean", "ppi_mean"]
