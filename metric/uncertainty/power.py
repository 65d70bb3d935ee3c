"""Power: the smallest difference a comparison can detect, and the prompts a planned run needs for a difference.

The test is the intervals' own: two-sided t at `df` degrees of freedom (units - strata for a plan). A true
difference D is detected with probability P(|T| > t_{1-alpha/2, df}), T noncentral t with noncentrality D / se
(`t_power`); without df, the normal approximation (z_{1-alpha/2} + z_{power}) * se. The standard error of a figure
over n prompts shrinks as 1 / sqrt(n), so a reference run's SE at n_ref prompts gives the SE at any n; a plan
iterates on n until the t test at n's degrees of freedom reaches the power.
"""

from __future__ import annotations

import functools
import math
import numbers
from dataclasses import dataclass

import numpy as np

from .quantiles import t_quantile

DEFAULT_ALPHA = 0.05
DEFAULT_POWER = 0.8
ASSUMPTIONS = (
    "two-sided t test at the reference's share of units - strata degrees of freedom (noncentral t power); "
    "the SE of the difference shrinks as 1/sqrt(n) from the reference's; "
    "new prompts drawn like the reference's, the models compared vary as the reference's did"
)
INDEPENDENT = "; independent runs: se_difference = sqrt(se_a^2 + se_b^2), no pairing gain (conservative)"
BOUNDED = (
    "; one reference: the other model's SE bounded by the most a figure on its {width:g}-wide scale can have (each "
    "unit's variance at most width^2 / 4, Popoviciu), whatever the other model is"
)


def check_positive(name: str, value: object) -> None:
    real = isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))
    if not real or not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a positive number, got {value!r}")


def check_probability(name: str, value: object) -> None:
    real = isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))
    if not real or not 0 < value < 1:
        raise ValueError(f"{name} must be a number in (0, 1), got {value!r}")


def z_sum(alpha: float, power: float) -> float:
    """z_{1 - alpha/2} + z_{power}: 2.80 at alpha 0.05 and power 0.8."""
    check_probability("alpha", alpha)
    check_probability("power", power)
    return t_quantile(1 - alpha / 2, None) + t_quantile(power, None)


def t_power(noncentrality: float, df: float, alpha: float = DEFAULT_ALPHA) -> float:
    """Probability that a two-sided t test at `alpha` with `df` degrees of freedom rejects, at a true difference of
    `noncentrality` standard errors."""
    from scipy.special import nctdtr  # scipy.stats' nct.cdf, without its argument checks

    critical = t_quantile(1 - alpha / 2, df)
    power = float(noncentral_t_sf(critical, df, noncentrality) + nctdtr(df, noncentrality, -critical))
    return power if math.isfinite(power) else integrated_t_power(noncentrality, df, critical)


def noncentral_t_sf(x: float, df: float, noncentrality: float) -> float:
    """scipy.stats' `nct.sf(x, df, nc)`, computed as it computes it (its ufunc, clipped to [0, 1]) where that ufunc
    is there: a power plan or comparison evaluates it some thousand times, and scipy.stats' checks cost 10x the
    value."""
    try:
        from scipy.special._ufuncs import _nct_sf
    except ImportError:  # another scipy: its public path
        from scipy.stats import nct

        return float(nct.sf(x, df, noncentrality))
    with np.errstate(over="ignore"):
        return float(np.clip(_nct_sf(x, df, noncentrality), 0.0, 1.0))


def integrated_t_power(noncentrality: float, df: float, critical: float) -> float:
    """P(|T| > critical) for T = (Z + noncentrality) / sqrt(V / df), V ~ chi2(df), integrated over V: where scipy's
    noncentral t is not finite (few degrees of freedom, a large noncentrality)."""
    from scipy.integrate import quad
    from scipy.stats import chi2, norm

    def rejecting(v: float) -> float:
        scale = critical * math.sqrt(v / df)
        return float((norm.sf(scale - noncentrality) + norm.cdf(-scale - noncentrality)) * chi2.pdf(v, df))

    return float(min(1.0, quad(rejecting, 0.0, math.inf)[0]))


def minimum_detectable_difference(
    se_difference: float, alpha: float = DEFAULT_ALPHA, power: float = DEFAULT_POWER, df: float | None = None
) -> float:
    """The smallest true difference detected with probability `power` by a two-sided test at `alpha` (a t test at
    `df` degrees of freedom; the normal approximation where df is None)."""
    if se_difference == 0:
        return 0.0
    check_positive("se_difference", se_difference)
    normal = z_sum(alpha, power)
    if df is None or not math.isfinite(df):
        return normal * se_difference
    return detectable_in_se(max(float(df), 1.0), alpha, power) * se_difference


@functools.lru_cache(maxsize=4096)
def detectable_in_se(df: float, alpha: float, power: float) -> float:
    """The minimum detectable difference in standard errors of a t test at `df` degrees of freedom (the same for
    every pair of runs compared on the same units: solved once)."""
    from scipy.optimize import brentq

    top = z_sum(alpha, power) * 2
    while t_power(top, df, alpha) < power:
        top *= 2
    return float(brentq(lambda d: t_power(d, df, alpha) - power, 0.0, top))


def independent_se(se_a: float, se_b: float | None = None) -> float:
    """SE of a difference between two runs on different prompts, sqrt(se_a^2 + se_b^2) (se_b = se_a if not
    given): what a planned comparison needs when the reference is a single run."""
    se_b = se_a if se_b is None else se_b
    check_positive("se_a", se_a)
    check_positive("se_b", se_b)
    return math.hypot(se_a, se_b)


def scale_bound_se(width: float, stratum_sizes: list[int]) -> float:
    """The largest SE a mean of per-unit scores on a scale `width` wide can have over strata of these sizes, the
    figure the mean of the strata's means (one stratum: the plain mean): sqrt(sum_h (1/H)^2 (width / 2)^2 / n_h),
    each unit's variance at most (width / 2)^2 (Popoviciu's inequality). A figure that weighs its units unequally
    (a pooled ratio over items of different sizes) is bounded by it only approximately."""
    check_positive("width", width)
    if not stratum_sizes or min(stratum_sizes) < 1:
        raise ValueError(f"stratum_sizes must be positive unit counts, got {stratum_sizes!r}")
    strata = len(stratum_sizes)
    return width / 2 * math.sqrt(sum(1 / (strata * strata * n) for n in stratum_sizes))


@dataclass(frozen=True)
class PowerPlan:
    """How many prompts detect `difference` with probability `power` at `alpha`, and the SE of the difference then;
    `expected_power` the power at that many prompts where a simulation measured it: the lower 95% bound of its Monte
    Carlo measurement (at least `power`)."""

    prompts: int
    difference: float
    se_difference: float
    alpha: float
    power: float
    assumptions: str
    expected_power: float | None = None

    def to_dict(self) -> dict[str, float | int | str | None]:
        return {
            "prompts": self.prompts,
            "difference": self.difference,
            "se_difference": self.se_difference,
            "alpha": self.alpha,
            "power": self.power,
            "assumptions": self.assumptions,
            "expected_power": self.expected_power,
        }


def prompts_needed(
    difference: float,
    se_difference: float,
    n_reference: int,
    alpha: float = DEFAULT_ALPHA,
    power: float = DEFAULT_POWER,
    paired: bool = True,
    strata: int = 1,
    df_share: float = 1.0,
) -> PowerPlan:
    """Prompts a run needs to detect `difference`, from the SE of a difference measured on `n_reference` prompts.

    The smallest n at which a two-sided t test (df = df_share x (n - strata); `df_share` the reference's
    Welch-Satterthwaite df over its units - strata, 1 where not known) on SE se_difference * sqrt(n_reference / n)
    detects the difference with probability `power` (the normal plan's n is where the search starts). For a paired
    reference (two runs on shared prompts) pass the paired difference's SE; for a single reference run pass
    `independent_se(se)` and `paired=False`, which the assumptions then state.
    """
    real = isinstance(difference, numbers.Real) and not isinstance(difference, (bool, np.bool_))
    if not real or not math.isfinite(difference) or difference == 0:
        raise ValueError(f"difference must be a non-zero number, got {difference!r}")
    check_positive("se_difference", se_difference)
    if isinstance(n_reference, bool) or not isinstance(n_reference, numbers.Integral) or n_reference < 1:
        raise ValueError(f"n_reference must be a positive integer, got {n_reference!r}")
    if isinstance(strata, bool) or not isinstance(strata, numbers.Integral) or strata < 1:
        raise ValueError(f"strata must be a positive integer, got {strata!r}")
    check_positive("df_share", df_share)
    normal = n_reference * (z_sum(alpha, power) * se_difference / abs(difference)) ** 2
    prompts = max(strata + 1, math.ceil(normal - 1e-9))  # an exact fit is not rounded up by float noise

    def reached(n: int) -> bool:
        df = max(df_share * (n - strata), 1.0)
        return t_power(abs(difference) / (se_difference * math.sqrt(n_reference / n)), df, alpha) >= power

    while not reached(prompts):
        prompts = prompts + max(1, prompts // 64)
    while prompts > strata + 1 and reached(prompts - 1):
        prompts -= 1
    return PowerPlan(
        prompts=prompts,
        difference=float(difference),
        se_difference=se_difference * math.sqrt(n_reference / prompts),
        alpha=alpha,
        power=power,
        assumptions=ASSUMPTIONS + ("" if paired else INDEPENDENT),
    )
