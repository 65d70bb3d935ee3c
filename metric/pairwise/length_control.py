"""Length-controlled win rate (AlpacaEval 2.0: Dubois et al. 2024, "Length-Controlled AlpacaEval").

The rule, from alpaca_eval 0.6.6 (`alpaca_eval/metrics/glm_winrate.py`, `get_length_controlled_winrate`): for one
model against the baseline, over the battles between the two,

    logit P(model wins) = w_len * tanh(delta / std(delta)) + w_diff * difficulty + w_model

with `delta` the length difference of the two answers (std with ddof=1 over those battles) and `difficulty` the
instruction's difficulty, a covariate fitted beforehand. The preference is a soft label p (1 win, 0 loss, 0.5
tie): each battle becomes a row labelled 1 with weight p and a row labelled 0 with weight 1 - p. The fit is an
L1-penalised logistic regression without intercept (liblinear, random_state 123) whose C is the best of 10 values
from 1e-4 to 1e4 by 5-fold cross-validation (folds grouped by battle, scored by the soft log loss). The LC win
rate is the mean over the battles of the predicted P(model wins) with the length term set to zero; its standard
error is the standard error of the mean of those predictions (upstream's `lc_standard_error`).

`instruction_difficulty` estimates the difficulty as alpaca_eval's `notebooks/instruction_difficulty.ipynb` did:
one joint GLM over every model against the baseline, with a bias and a length slope per model and one effect per
instruction (the first instruction, in sorted order, is the reference 0), fitted the same way.

Recorded deviations from upstream:

1. Ties. Our four labels map to the preference as A/B win = 1/0 and both "equally good" and "equally bad" = 0.5
   (half a win). Upstream has one draw label (preference 0 or 1.5), also read as 0.5, so the numbers agree; the
   distinction between the two kinds of tie is not used (TencentLLMEval's `tencent_win_rate`, which gives nothing
   for "equally bad", is not what is modelled here).
2. No gamed-baseline regularisation. Upstream's default GLM (`length_controlled_v1`) adds AlpacaEval's annotations
   of the baseline prompted to be verbose or concise (`df_gamed.csv`, weight 0.2 / 2). No such data exists for
   other benchmarks, so we fit its `length_controlled_noreg` formula; with no difficulty given, the difficulty
   column is left out (its `length_controlled_minimal` formula).
3. Difficulty is an input per battle, not AlpacaEval's downloaded 805-instruction table. `instruction_difficulty`
   leaves out the notebook's `not_gamed_baseline` column (a constant without gamed models, collinear with the
   per-model biases) and its 1e-4 random jitter on the length difference (a zero spread gives a zero feature).
4. Lengths are given by the caller (upstream: characters, `str.len()` of the outputs). `delta` is model minus
   baseline (upstream: baseline minus model), so the fitted length coefficient has the opposite sign of the
   upstream weight files; predictions are unchanged.
5. If every `delta` is the same, the spread is 0 and the length feature is 0: the LC win rate is the fitted model
   term alone. Upstream divides by the zero spread. A constant nonzero difference becomes +-inf, `np.tanh` makes it
   a constant +-1 column that the L1 fit confounds with the model's bias, and predicting at length 0 drops that
   column's share, so upstream returns another number (40 battles, win rate 76.25%: upstream 73.38%, here 75.35%).
   All differences zero give 0/0 = NaN, which patsy passes on and scikit-learn's fit rejects (`ValueError: Input X
   contains NaN`). Run with alpaca-eval 0.6.6 (scikit-learn 1.9.1, patsy 1.0.3), `length_controlled_minimal`.
6. Win rates are fractions in [0, 1] (upstream: percent). Nothing is saved to disk, no `glm_preference` column is
   added, there is no warning on extreme changes and no re-prediction against another baseline from saved weights.
7. scikit-learn >= 1.8 spelling: `l1_ratios=(1.0,)` for `penalty="l1"`; metadata routing is enabled only inside a
   `config_context` (upstream sets it globally); the soft log loss is sklearn's `log_loss` with the soft label as
   sample weight, equal to upstream's `logloss_continuous` (which clips predictions at 1e-15).
8. Bad input raises a ValueError naming the position (upstream: pandas/patsy errors or NaN); fewer than 5 battles
   against the baseline raises one naming the model (upstream's GroupKFold also fails there).
"""

from __future__ import annotations

import math
import numbers
from collections import defaultdict
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from longform_eval.common.plurals import counted

from .outcomes import Battle, model_name_problem, score_for_a

FOLDS = 5
C_GRID = 10  # LogisticRegressionCV's Cs: 10 values, log-spaced from 1e-4 to 1e4
SEED = 123


@dataclass(frozen=True)
class LengthControlledWinRate:
    """One model against the baseline: plain and length-controlled win rates (fractions; ties count half)."""

    model: str
    baseline: str
    n: int
    win_rate: float
    length_controlled: float
    standard_error: float
    coefficients: dict[str, float]


@dataclass(frozen=True)
class _Rows:
    """The battles of one model against the baseline, seen from the model's side."""

    preference: np.ndarray
    delta: np.ndarray
    difficulty: np.ndarray
    positions: np.ndarray


def length_controlled_win_rates(
    battles: Sequence[Battle],
    lengths: Sequence[tuple[int, int]],
    baseline: str,
    difficulty: Sequence[float] | None = None,
) -> dict[str, LengthControlledWinRate]:
    """Plain and length-controlled win rate of every model that met `baseline`, keyed by model.

    Args:
        battles: the comparisons; those without the baseline are ignored (their lengths are still checked).
        lengths: per battle, the lengths of the answers shown as A and as B (integers >= 0, e.g. characters).
        baseline: the model every other model is compared with.
        difficulty: per battle, the difficulty of its instruction (e.g. from `instruction_difficulty`); None
            leaves the term out.
    """
    rows = _rows_by_model(battles, lengths, baseline, difficulty)
    return {model: _length_controlled(model, baseline, r, difficulty is not None) for model, r in rows.items()}


def instruction_difficulty(
    battles: Sequence[Battle], lengths: Sequence[tuple[int, int]], baseline: str, instructions: Sequence[Hashable]
) -> dict[Hashable, float]:
    """Difficulty of each instruction met against `baseline`, from one joint GLM over all models (see module doc)."""
    _check_aligned("instructions", instructions, battles)
    rows = _rows_by_model(battles, lengths, baseline, None)
    ids = [instructions[i] for r in rows.values() for i in r.positions]
    try:
        levels = sorted(set(ids))
    except TypeError as error:
        raise ValueError("instructions must be mutually comparable ids (all str or all int)") from error
    column = {level: i for i, level in enumerate(levels[1:])}
    blocks = []
    for m, r in enumerate(rows.values()):
        block = np.zeros((len(r.preference), 2 * len(rows) + len(column)))
        block[:, m] = 1.0
        block[:, len(rows) + m] = _tanh_standardised(r.delta)
        for row, position in enumerate(r.positions):
            level = instructions[position]
            if level in column:
                block[row, 2 * len(rows) + column[level]] = 1.0
        blocks.append(block)
    preference = np.concatenate([r.preference for r in rows.values()])
    coefficients = _fit(np.vstack(blocks), preference).coef_[0][2 * len(rows) :]
    return {levels[0]: 0.0} | {level: float(coefficients[i]) for level, i in column.items()}


def _length_controlled(model: str, baseline: str, rows: _Rows, with_difficulty: bool) -> LengthControlledWinRate:
    if len(rows.preference) < FOLDS:
        raise ValueError(
            f"{model!r} has {counted(len(rows.preference), 'battle')} against {baseline!r}; "
            f"the {FOLDS}-fold cross-validated fit needs at least {FOLDS}"
        )
    names = ["length", "difficulty", "model"] if with_difficulty else ["length", "model"]
    covariates = [rows.difficulty] if with_difficulty else []
    ones = np.ones(len(rows.preference))
    fitted = _fit(np.column_stack([_tanh_standardised(rows.delta), *covariates, ones]), rows.preference)
    predicted = fitted.predict_proba(np.column_stack([np.zeros_like(ones), *covariates, ones]))[:, 1]
    return LengthControlledWinRate(
        model=model,
        baseline=baseline,
        n=len(rows.preference),
        win_rate=float(rows.preference.mean()),
        length_controlled=float(predicted.mean()),
        standard_error=float(predicted.std(ddof=1) / math.sqrt(len(predicted))),
        coefficients=dict(zip(names, fitted.coef_[0].tolist(), strict=True)),
    )


def _tanh_standardised(delta: np.ndarray) -> np.ndarray:
    spread = delta.std(ddof=1) if len(delta) > 1 else 0.0
    return np.tanh(delta / spread) if spread > 0 else np.zeros_like(delta)


def _fit(features: np.ndarray, preference: np.ndarray) -> Any:
    """L1 logistic regression on soft labels, C by grouped cross-validation with the soft log loss."""
    n = len(preference)
    x = np.vstack([features, features])
    y = np.concatenate([np.ones(n), np.zeros(n)])
    weight = np.concatenate([preference, 1.0 - preference])
    groups = np.concatenate([np.arange(n), np.arange(n)])
    import sklearn  # on first fit (about a second): importing the metric stays light
    from sklearn.linear_model import LogisticRegressionCV
    from sklearn.metrics import log_loss, make_scorer
    from sklearn.model_selection import GroupKFold

    with sklearn.config_context(enable_metadata_routing=True):
        scorer = make_scorer(log_loss, response_method="predict_proba", greater_is_better=False)
        model = LogisticRegressionCV(
            Cs=C_GRID,
            l1_ratios=(1.0,),
            cv=GroupKFold(FOLDS),
            scoring=scorer.set_score_request(sample_weight=True),
            solver="liblinear",
            fit_intercept=False,
            random_state=SEED,
            use_legacy_attributes=False,
        )
        model.fit(x, y, sample_weight=weight, groups=groups)
    return model


def _rows_by_model(
    battles: Sequence[Battle],
    lengths: Sequence[tuple[int, int]],
    baseline: str,
    difficulty: Sequence[float] | None,
) -> dict[str, _Rows]:
    problem = model_name_problem(baseline)
    if problem is not None:
        raise ValueError(f"baseline: {problem}")
    _check_aligned("lengths", lengths, battles)
    if difficulty is not None:
        _check_aligned("difficulty", difficulty, battles)
    found: dict[str, list[tuple[float, float, float, int]]] = defaultdict(list)
    for i, battle in enumerate(battles):
        length_a, length_b = _lengths_at(lengths, i)
        level = _difficulty_at(difficulty, i)
        if baseline not in (battle.model_a, battle.model_b):
            continue
        s = score_for_a(battle.outcome)
        if battle.model_a == baseline:
            found[battle.model_b].append((1.0 - s, float(length_b - length_a), level, i))
        else:
            found[battle.model_a].append((s, float(length_a - length_b), level, i))
    if not found:
        raise ValueError(f"baseline {baseline!r} is in no battle")
    return {model: _as_rows(found[model]) for model in sorted(found)}


def _as_rows(entries: list[tuple[float, float, float, int]]) -> _Rows:
    preference, delta, difficulty, positions = (np.array(column) for column in zip(*entries, strict=True))
    return _Rows(preference=preference, delta=delta, difficulty=difficulty, positions=positions.astype(np.int64))


def _check_aligned(name: str, values: Sequence[object], battles: Sequence[Battle]) -> None:
    if len(values) != len(battles):
        raise ValueError(f"{name} has {counted(len(values), 'entry')} for {counted(len(battles), 'battle')}")


def _lengths_at(lengths: Sequence[tuple[int, int]], i: int) -> tuple[int, int]:
    pair = lengths[i]
    if isinstance(pair, tuple | list) and len(pair) == 2 and all(_is_count(x) for x in pair):
        return int(pair[0]), int(pair[1])
    raise ValueError(f"lengths[{i}]: expected (length of A, length of B) as integers >= 0, got {pair!r:.60}")


def _difficulty_at(difficulty: Sequence[float] | None, i: int) -> float:
    if difficulty is None:
        return 0.0
    value = difficulty[i]
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
        raise ValueError(f"difficulty[{i}]: expected a finite number, got {value!r:.60}")
    return float(value)


def _is_count(value: object) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool) and value >= 0
