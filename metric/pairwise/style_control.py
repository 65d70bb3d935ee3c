"""Style-controlled Bradley-Terry (arena-hard-auto's style control).

The rule, from lmarena/arena-hard-auto at 0489bf3 (2024-09-01, the last scikit-learn version): `add_markdown_info.py`
(`count_markdown_elements`) and `utils_math.py` (`construct_style_matrices`, `fit_bt`,
`get_bootstrap_result_style_control`):

- Each answer has four style counts: tokens; markdown headers (a line starting with 1 to 6 `#` and a space); list
  items (`1. ` or `- `, `* `, `+ ` at the start of a line after optional spaces); bold spans (`**x**`, `__x__`).
  The markdown counts are taken after removing fenced code blocks, the tokens on the whole answer.
- For a battle, each count gives the covariate (A - B) / (A + B + 1), standardised to mean 0 and std 1 (ddof 0)
  over the battles.
- A logistic regression without intercept of "A wins" on the model indicators (+ln 10 for A, -ln 10 for B) and
  the four covariates; each battle counts twice (a win as two wins, a tie as one win and one loss). A model's
  rating is 400 times its coefficient (Elo scale); the covariates' coefficients are reported as they are.
- Intervals: resample the battles with replacement, refit (the covariates keep their full-data standardisation),
  percentile intervals over the rounds.

Recorded deviations from upstream:

1. Ties: "equally good" and "equally bad" are both one win and one loss, as upstream's "tie" and "tie (bothbad)";
   they are entered as two weighted rows instead of duplicated rows (the same likelihood).
2. Penalty: upstream's `fit_bt` keeps scikit-learn's default L2 penalty (C = 1.0). Here the default is no penalty
   beyond the 1e-6 ridge on log-strengths of `ratings.bradley_terry` (which keeps an unbeaten model finite), so
   that with constant styles the ratings are those of `bradley_terry`; `penalty_c=1.0` gives upstream's fit.
3. Scale: ratings are centred at `base` (their mean over models is `base`); upstream anchors its baseline at 1114.
4. A covariate with no spread (std 0) is set to 0; upstream divides by zero and its fit fails on the NaN.
5. Tokens: `style_features` counts whitespace-separated words unless it is given `count_tokens`; upstream counts
   tiktoken `gpt-3.5-turbo` tokens (cl100k_base, which needs a download).
6. Code blocks are removed with their fences; upstream removes each block's inner text wherever it occurs in the
   answer and leaves the fences (which match none of the counted patterns).
7. Battles may have any model on either side (upstream: the baseline is always A). The bootstrap uses
   `numpy.random.default_rng(seed)` and the same resamples as `bradley_terry` (upstream: global seed 42); a model
   absent from a resample keeps coefficient 0 there (upstream drops it from that round).
8. Bad input raises a ValueError naming the position or field.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields

import numpy as np

from longform_eval.common.plurals import counted

from .outcomes import Battle, models_of
from .ratings import ELO_SCALE, RIDGE, BradleyTerry, battle_arrays, percentile_interval

CODE_BLOCK = re.compile(r"```[^`]*```")
HEADER = re.compile(r"^#{1,6}\s", re.MULTILINE)
# Each pattern is counted on its own and the counts added, as upstream does.
LIST_ITEMS = (re.compile(r"^\s*\d+\.\s", re.MULTILINE), re.compile(r"^\s*[-*+]\s", re.MULTILINE))
BOLD_SPANS = (re.compile(r"\*\*[^*\n]+\*\*"), re.compile(r"__[^_\n]+__"))
LN10 = math.log(10.0)
# bradley_terry's ridge (RIDGE * theta^2 on the one-row-per-battle likelihood) on this fit's scale: two rows per
# battle and coefficients in log10 units, i.e. 1 / (2C) = 2 * RIDGE * ln(10)^2.
RIDGE_C = 1.0 / (4.0 * RIDGE * LN10**2)


@dataclass(frozen=True)
class StyleFeatures:
    """Style counts of one answer (integers >= 0)."""

    tokens: int
    headers: int
    lists: int
    bold: int

    def __post_init__(self) -> None:
        for count in fields(self):
            value = getattr(self, count.name)
            if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
                raise ValueError(f"{count.name}: expected a count (an integer >= 0), got {value!r:.40}")


STYLE_NAMES = tuple(count.name for count in fields(StyleFeatures))


def whitespace_tokens(text: str) -> int:
    return len(text.split())


def style_features(text: str, count_tokens: Callable[[str], int] = whitespace_tokens) -> StyleFeatures:
    """Tokens of the whole answer; headers, list items and bold spans outside fenced code blocks."""
    if not isinstance(text, str):
        raise ValueError(f"expected the answer as a string, got {text!r:.40}")
    prose = CODE_BLOCK.sub("", text)
    return StyleFeatures(
        tokens=count_tokens(text),
        headers=len(HEADER.findall(prose)),
        lists=sum(len(pattern.findall(prose)) for pattern in LIST_ITEMS),
        bold=sum(len(pattern.findall(prose)) for pattern in BOLD_SPANS),
    )


@dataclass(frozen=True)
class StyleControlledBT(BradleyTerry):
    """Bradley-Terry ratings with the style covariates held out, and the covariates' coefficients (logit units)."""

    style: dict[str, float] = field(default_factory=dict)


def style_controlled_bradley_terry(
    battles: Sequence[Battle],
    styles: Sequence[tuple[StyleFeatures, StyleFeatures]],
    bootstrap: int = 100,
    seed: int = 0,
    base: float = 1000.0,
    alpha: float = 0.05,
    penalty_c: float | None = None,
) -> StyleControlledBT:
    """Style-controlled BT ratings on the Elo scale (mean `base`) with percentile bootstrap intervals.

    Args:
        battles: the comparisons.
        styles: per battle, the style of the answer shown as A and of the one shown as B.
        bootstrap: resampling rounds (an integer >= 0); alpha: 1 - the interval's coverage.
        penalty_c: scikit-learn's C for an L2 penalty on all coefficients (upstream: 1.0); None: no penalty.
    """
    _check_options(bootstrap, alpha, penalty_c)
    if len(styles) != len(battles):
        raise ValueError(f"styles has {counted(len(styles), 'entry')} for {counted(len(battles), 'battle')}")
    if not battles:
        return StyleControlledBT(models=[], ratings={}, lower={}, upper={}, rounds=bootstrap, style={})
    models = models_of(battles)
    a, b, s = battle_arrays(battles, models)
    design = np.zeros((len(battles), len(models) + len(STYLE_NAMES)))
    design[np.arange(len(battles)), a] = LN10
    design[np.arange(len(battles)), b] = -LN10
    design[:, len(models) :] = _standardised(_style_differences(styles))
    c = RIDGE_C if penalty_c is None else penalty_c
    point = _fit(design, s, c)
    ratings = _ratings(point, len(models), base)

    def refit(pick: np.ndarray) -> np.ndarray:
        return _ratings(_fit(design[pick], s[pick], c), len(models), base)

    low, high = percentile_interval(refit, len(battles), ratings, bootstrap, seed, alpha)
    return StyleControlledBT(
        models=models,
        ratings=dict(zip(models, ratings.tolist(), strict=True)),
        lower=dict(zip(models, np.asarray(low).tolist(), strict=True)),
        upper=dict(zip(models, np.asarray(high).tolist(), strict=True)),
        rounds=bootstrap,
        style=dict(zip(STYLE_NAMES, point[len(models) :].tolist(), strict=True)),
    )


def _style_differences(styles: Sequence[tuple[StyleFeatures, StyleFeatures]]) -> np.ndarray:
    """(A - B) / (A + B + 1) per battle and style count."""
    counts = np.empty((len(styles), 2, len(STYLE_NAMES)))
    for i, pair in enumerate(styles):
        if not (isinstance(pair, tuple | list) and len(pair) == 2 and all(isinstance(x, StyleFeatures) for x in pair)):
            raise ValueError(f"styles[{i}]: expected (style of A, style of B) as StyleFeatures, got {pair!r:.60}")
        counts[i] = [[getattr(x, name) for name in STYLE_NAMES] for x in pair]
    return (counts[:, 0] - counts[:, 1]) / (counts[:, 0] + counts[:, 1] + 1.0)


def _standardised(values: np.ndarray) -> np.ndarray:
    spread = values.std(axis=0)
    safe = np.where(spread > 0, spread, 1.0)
    return np.where(spread > 0, (values - values.mean(axis=0)) / safe, 0.0)


def _fit(design: np.ndarray, s: np.ndarray, c: float) -> np.ndarray:
    """Coefficients of the logistic regression, each battle entered as a win (weight 2s) and a loss (2 - 2s)."""
    n = len(s)
    from sklearn.linear_model import LogisticRegression  # on first fit: importing the metric stays light

    model = LogisticRegression(C=c, fit_intercept=False, tol=1e-10, max_iter=10_000)
    model.fit(
        np.vstack([design, design]),
        np.concatenate([np.ones(n), np.zeros(n)]),
        sample_weight=np.concatenate([2.0 * s, 2.0 - 2.0 * s]),
    )
    return model.coef_[0]


def _ratings(coefficients: np.ndarray, n_models: int, base: float) -> np.ndarray:
    strengths = coefficients[:n_models]
    return base + ELO_SCALE * (strengths - strengths.mean())


def _check_options(bootstrap: int, alpha: float, penalty_c: float | None) -> None:
    if isinstance(bootstrap, bool) or not isinstance(bootstrap, int) or bootstrap < 0:
        raise ValueError(f"bootstrap must be an integer >= 0, got {bootstrap!r}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    if penalty_c is not None and not (math.isfinite(penalty_c) and penalty_c > 0):
        raise ValueError(f"penalty_c must be a positive number or None, got {penalty_c!r}")
